package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Bounds for the supervision tests. They are generous (a loaded 2-core
// machine), and far below the budgets each test sets, so that only the
// behaviour under test can meet them; the benchmarks in test/perf report
// the real latencies.
const (
	// noticeBound: a crash during the load ends sglaunch within this of
	// the crash (the "within 1 s", with room for a loaded host).
	noticeBound = 5 * time.Second
	// goneBound: processes left after sglaunch is SIGKILLed die this soon.
	goneBound = 10 * time.Second
)

// stopWaits scale SGLang's stop timing down by 20, in its proportions:
// the drain checks every 5 s (0.25), waits up to 15 s for the schedulers
// (0.75), and the child watchdog looks every second (0.05), so a SIGTERM
// to the whole group is still caught by the watchdog before the drain
// ends, as under SGLang. simEnv overrides them.
var stopWaits = map[string]string{
	"SGLANG_SIM_DRAIN_POLL_SECONDS":    "0.25",
	"SGLANG_SIM_SHUTDOWN_WAIT_SECONDS": "0.75",
	"SGLANG_SIM_WATCHDOG_SECONDS":      "0.05",
}

// simProfile writes a profile that runs the sim with tp 2 on a free port,
// with the SGLANG_SIM_* variables in simEnv (over stopWaits) and extra
// top-level YAML, and returns the port.
func simProfile(t *testing.T, e *testEnv, name string, simEnv map[string]string, extra string) int {
	t.Helper()
	port := testkit.FreePort(t)
	var env strings.Builder
	all := make(map[string]string, len(stopWaits)+len(simEnv))
	for k, v := range stopWaits {
		all[k] = v
	}
	for k, v := range simEnv {
		all[k] = v
	}
	simEnv = all
	keys := make([]string, 0, len(simEnv))
	for k := range simEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&env, "  %s: %q\n", k, simEnv[k])
	}
	e.Profile(name, fmt.Sprintf(`python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
%sargs:
  model-path: sim/model
  tp: 2
  port: %d
%s`, testkit.RealPython(t), env.String(), port, extra))
	return port
}

// descendantsOf returns the live descendants of pid.
func descendantsOf(t *testing.T, pid int) []int {
	t.Helper()
	pids, err := proc.Descendants(pid)
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// allGone fails unless every pid has exited.
func allGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if proc.Alive(pid) {
			cmd, _ := proc.Cmdline(pid)
			t.Errorf("pid %d %q survived", pid, cmd)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitServeHealthy waits until sglaunch says the server is healthy.
func waitServeHealthy(t *testing.T, p *Proc) {
	t.Helper()
	testkit.WaitFor(t, waitTimeout, "sglaunch: healthy", func() bool {
		select {
		case <-p.Done():
			t.Fatalf("sglaunch exited early:\n%s", p.Stderr())
		default:
		}
		return strings.Contains(p.Stderr(), "sglaunch: healthy after ")
	})
}

func healthStatus(port int) int {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/health", port))
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeCrashDuringLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "crash", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":      "2",
		"SGLANG_SIM_CRASH_DURING_LOAD": "0.5",
		"SGLANG_SIM_CRASH_EXIT_CODE":   "3",
	}, "health:\n  poll_interval: 1h\n  stall_timeout: 10m\n")
	p := e.Start("serve", "--profile", "crash")
	var crashSeen time.Time
	testkit.WaitFor(t, waitTimeout, "the crash's traceback", func() bool {
		if strings.Contains(p.Stderr(), "Traceback") {
			crashSeen = time.Now()
			return true
		}
		return false
	})
	code := p.Wait(t, commandTimeout)
	if d := time.Since(crashSeen); d > noticeBound {
		t.Errorf("sglaunch exited %v after the crash, want within %v", d, noticeBound)
	}
	if code != 3 {
		t.Errorf("exit status: got %d, want the server's 3\n%s", code, p.Stderr())
	}
	stderr := p.Stderr()
	for _, want := range []string{"sglaunch: error: server exited with status 3 during the load", " lines of server output:\n", "Traceback (most recent call last):"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// notifySocket is a unixgram socket like systemd's NOTIFY_SOCKET; each
// datagram is kept with its arrival time.
type notifySocket struct {
	Path string
	mu   sync.Mutex
	msgs []string
	on   func(string)
}

func listenNotify(t *testing.T, on func(string)) *notifySocket {
	t.Helper()
	dir, err := os.MkdirTemp("", "notify") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n := &notifySocket{Path: filepath.Join(dir, "sock"), on: on}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: n.Path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := conn.Read(buf)
			if err != nil {
				return
			}
			m := string(buf[:k])
			if n.on != nil {
				n.on(m)
			}
			n.mu.Lock()
			n.msgs = append(n.msgs, m)
			n.mu.Unlock()
		}
	}()
	return n
}

func (n *notifySocket) Messages() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.msgs)
}

// msgIndex returns the position of the first message containing s, or -1.
func msgIndex(msgs []string, s string) int {
	return slices.IndexFunc(msgs, func(m string) bool { return strings.Contains(m, s) })
}

func msgCount(msgs []string, s string) int {
	n := 0
	for _, m := range msgs {
		if strings.Contains(m, s) {
			n++
		}
	}
	return n
}

// TestServeSystemdNotify: a slow load (connection refused, then 503
// during the warm-up, then 200) sends STATUS during the load, READY=1
// exactly once and only once /health answers 200, WATCHDOG=1 only after
// READY, and STOPPING=1 at the end; the server never sees NOTIFY_SOCKET.
func TestServeSystemdNotify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := filepath.Join(e.Dir, "record.json")
	port := simProfile(t, e, "slow", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":   "1.5",
		"SGLANG_SIM_WARMUP_SECONDS": "1.5",
		"SGLANG_SIM_TTFT_MS":        "5",
		"SGLANG_SIM_RECORD":         rec,
	}, "health:\n  poll_interval: 100ms\n  interval: 200ms\n")
	var readyProbe atomic.Int32
	var readyOnce sync.Once
	sock := listenNotify(t, func(m string) {
		if strings.Contains(m, "READY=1") {
			// At the moment READY=1 arrives, /health must already be 200.
			readyOnce.Do(func() { readyProbe.Store(int32(healthStatus(port))) })
		}
	})
	e.Vars["NOTIFY_SOCKET"] = sock.Path
	e.Vars["WATCHDOG_USEC"] = "400000"
	p := e.Start("serve", "--profile", "slow", "--log-file", filepath.Join(e.Dir, "server.log"))
	waitServeHealthy(t, p)
	testkit.WaitFor(t, waitTimeout, "WATCHDOG=1", func() bool { return msgIndex(sock.Messages(), "WATCHDOG=1") >= 0 })
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	testkit.WaitFor(t, waitTimeout, "STOPPING=1", func() bool { return msgIndex(sock.Messages(), "STOPPING=1") >= 0 })

	msgs := sock.Messages()
	ready := msgIndex(msgs, "READY=1")
	switch {
	case ready < 0:
		t.Fatalf("no READY=1 in %q", msgs)
	case msgCount(msgs, "READY=1") != 1:
		t.Errorf("READY=1 sent %d times, want once: %q", msgCount(msgs, "READY=1"), msgs)
	}
	if got := readyProbe.Load(); got != http.StatusOK {
		t.Errorf("/health answered %d when READY=1 arrived, want 200", got)
	}
	if s := msgIndex(msgs, "STATUS=loading"); s < 0 || s > ready {
		t.Errorf("no STATUS= during the load before READY=1: %q", msgs)
	}
	if i := msgIndex(msgs, "EXTEND_TIMEOUT_USEC="); i < 0 || i > ready {
		t.Errorf("no EXTEND_TIMEOUT_USEC before READY=1: %q", msgs)
	}
	if w := msgIndex(msgs, "WATCHDOG=1"); w < ready {
		t.Errorf("WATCHDOG=1 before READY=1: %q", msgs)
	}
	if s := msgIndex(msgs, "STOPPING=1"); s < ready {
		t.Errorf("no STOPPING=1 after READY=1: %q", msgs)
	}
	if got := readRecord(t, rec); got.Env["NOTIFY_SOCKET"] != "" || got.Env["WATCHDOG_USEC"] != "" {
		t.Errorf("the server got NOTIFY_SOCKET=%q WATCHDOG_USEC=%q", got.Env["NOTIFY_SOCKET"], got.Env["WATCHDOG_USEC"])
	}
	// The slow load went through refused connections and 503s first.
	if !strings.Contains(p.Stdout(), `"GET /health HTTP/1.1" 503`) {
		t.Errorf("no 503 probe during the warm-up in the access log:\n%s", p.Stdout())
	}
	if n := strings.Count(p.Stderr(), "sglaunch: healthy after "); n != 1 {
		t.Errorf("healthy line %d times, want once", n)
	}
	logged, err := os.ReadFile(filepath.Join(e.Dir, "server.log"))
	if err != nil || !strings.Contains(string(logged), "The server is fired up and ready to roll!") {
		t.Errorf("--log-file: %v; want the server's output in it", err)
	}
}

func TestServeHangAfterReady(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "hang", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":     "0.3",
		"SGLANG_SIM_HANG_AFTER_READY": "0.5",
		"SGLANG_HEALTH_CHECK_TIMEOUT": "1",
	}, "health:\n  interval: 200ms\n  failure_threshold: 2\n  request_timeout: 5s\n")
	p := e.Start("serve", "--profile", "hang")
	waitServeHealthy(t, p)
	pids := descendantsOf(t, p.Cmd.Process.Pid)
	code := p.Wait(t, commandTimeout)
	if code != 1 {
		t.Errorf("exit status: got %d, want 1\n%s", code, p.Stderr())
	}
	for _, want := range []string{"liveness probe failed (2/2)", "sglaunch: error: server unhealthy: 2 liveness probes failed in a row"} {
		if !strings.Contains(p.Stderr(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.Stderr())
		}
	}
	allGone(t, pids)
}

func TestServeKillsServerIgnoringSIGTERM(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "stubborn", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":   "0.3",
		"SGLANG_SIM_IGNORE_SIGTERM": "1",
	}, "stop_timeout: 1s\n")
	p := e.Start("serve", "--profile", "stubborn")
	waitServeHealthy(t, p)
	pids := descendantsOf(t, p.Cmd.Process.Pid)
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	code := p.Wait(t, commandTimeout)
	// A requested stop ends by its signal even when it had to be forced,
	// so that systemctl stop leaves the unit inactive, not failed (B6).
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status: got %d, want 143 (stopped on SIGTERM, killed after stop_timeout)\n%s", code, p.Stderr())
	}
	for _, want := range []string{"server still running 1.0s after the stop signal (stop_timeout); killing it",
		"sglaunch: warning: stopped on SIGTERM; the server was killed by SIGKILL (exit status 137): it did not stop within stop_timeout and sglaunch killed it"} {
		if !strings.Contains(p.Stderr(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.Stderr())
		}
	}
	allGone(t, pids)
}

func TestServeStopsSetsidWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "escape", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":  "0.3",
		"SGLANG_SIM_SETSID_WORKER": "1",
	}, "")
	p := e.Start("serve", "--profile", "escape")
	waitServeHealthy(t, p)
	pids := descendantsOf(t, p.Cmd.Process.Pid)
	escaped := 0
	for _, pid := range pids {
		if st, err := proc.ReadStat(pid); err == nil && strings.Contains(st.Comm, "escaped") {
			escaped = pid
			if st.SID != pid {
				t.Errorf("escaped worker %d: session %d, want its own", pid, st.SID)
			}
		}
	}
	if escaped == 0 {
		t.Fatalf("no escaped worker among %v", pids)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	allGone(t, pids)
}

func TestServeSIGKILLedLeavesNoServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "victim", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3"}, "")
	p := e.Start("serve", "--profile", "victim")
	waitServeHealthy(t, p)
	pids := descendantsOf(t, p.Cmd.Process.Pid)
	if len(pids) < 3 {
		t.Fatalf("want the server, 2 schedulers and a detokenizer; got %v", pids)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t, commandTimeout)
	testkit.WaitFor(t, goneBound, "the server and its workers to die", func() bool {
		return !slices.ContainsFunc(pids, proc.Alive)
	})
}

func TestServeExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		env    map[string]string
		extra  string
		signal syscall.Signal
		want   int
	}{
		{"server crash status", map[string]string{"SGLANG_SIM_CRASH_DURING_LOAD": "0.1", "SGLANG_SIM_CRASH_EXIT_CODE": "42"}, "", 0, 42},
		{"start timeout", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "60"}, "health:\n  start_timeout: 1s\n", 0, 1},
		{"stall", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "60"}, "health:\n  stall_timeout: 1s\n", 0, 1},
		// SGLang drains, then SIGKILLs itself ("killed by signal 9"):
		// a clean stop, so sglaunch ends by SIGTERM as systemd expects.
		{"SIGTERM", nil, "", syscall.SIGTERM, 128 + 15},
		{"SIGHUP", nil, "", syscall.SIGHUP, 128 + 1},
		{"SIGTERM, server exits 0", map[string]string{"SGLANG_SIM_SIGTERM_EXIT_CODE": "0"}, "", syscall.SIGTERM, 0},
		// uvicorn's graceful shutdown on Ctrl-C.
		{"SIGINT", nil, "", syscall.SIGINT, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			env := map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3"}
			for k, v := range tt.env {
				env[k] = v
			}
			simProfile(t, e, "status", env, tt.extra)
			p := e.Start("serve", "--profile", "status")
			if tt.signal != 0 {
				waitServeHealthy(t, p)
				_ = p.Cmd.Process.Signal(tt.signal)
			}
			if code := p.Wait(t, commandTimeout); code != tt.want {
				t.Errorf("exit status: got %d, want %d\n%s", code, tt.want, p.Stderr())
			}
			// A clean stop ends sglaunch by the signal itself, which is what
			// systemd counts as clean (an exit code of 143 is not).
			ws := p.Cmd.ProcessState.Sys().(syscall.WaitStatus)
			if want := tt.signal != 0 && tt.want == 128+int(tt.signal); ws.Signaled() != want {
				t.Errorf("ended by a signal: %v, want %v", ws.Signaled(), want)
			}
		})
	}
}

func TestServeJSONLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "json", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3"}, "")
	e.Vars["SGLAUNCH_LOG_FORMAT"] = "text"
	p := e.Start("serve", "--profile", "json", "--log-format", "json")
	testkit.WaitFor(t, waitTimeout, "a JSON healthy line", func() bool {
		return strings.Contains(p.Stderr(), `"msg":"healthy after `)
	})
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	configs := 0
	for _, l := range strings.Split(p.Stderr(), "\n") {
		if strings.HasPrefix(l, "sglaunch:") {
			t.Errorf("text line under --log-format json: %q", l)
		}
		// Issue 24: the effective config was 66 plain lines ahead of the
		// JSON ones; it is one JSON object line.
		if strings.HasPrefix(l, "# ") {
			t.Errorf("plain config line under --log-format json: %q", l)
		}
		var rec struct {
			Msg  string         `json:"msg"`
			Plan map[string]any `json:"plan"`
		}
		if json.Unmarshal([]byte(l), &rec) == nil && rec.Msg == "effective config" {
			configs++
			if rec.Plan["fingerprint"] == "" || rec.Plan["argv"] == nil {
				t.Errorf("effective config line without its plan: %q", l)
			}
		}
	}
	if configs != 1 {
		t.Errorf("got %d effective config lines, want 1\n%s", configs, p.Stderr())
	}

	_, stderr, code := e.Run("serve", "--profile", "json", "--log-format", "yaml")
	if code != 2 || !strings.Contains(stderr, "--log-format") {
		t.Errorf("--log-format yaml: exit %d, %q; want 2 naming the flag", code, stderr)
	}
}

// TestStopDrainsInFlightStream pins issue 10's third defect: sglaunch
// sent SIGTERM to the server's whole process group; SGLang's ranks have
// no SIGTERM handler, the child watchdog killed the tree, and a 400-token
// stream was cut at 132 tokens. The signal now goes to the main process,
// which drains: the stream completes and the exit line says so.
func TestStopDrainsInFlightStream(t *testing.T) {
	t.Parallel()
	stopDrainsInFlightStream(t, syscall.SIGTERM)
}

// TestSIGHUPDrainsInFlightStream pins issue 20's fourth defect: sglaunch
// documents SIGHUP as a stop like SIGTERM but passed SIGHUP on, and SGLang
// has no SIGHUP handler: its main process died at once and the stream was
// cut. The server now gets SIGTERM, the signal it drains on.
func TestSIGHUPDrainsInFlightStream(t *testing.T) {
	t.Parallel()
	stopDrainsInFlightStream(t, syscall.SIGHUP)
}

func stopDrainsInFlightStream(t *testing.T, sig syscall.Signal) {
	e := newEnv(t)
	port := simProfile(t, e, "drain", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_TTFT_MS": "50", "SGLANG_SIM_ITL_MS": "10"}, "")
	p := e.Start("serve", "--profile", "drain")
	waitServeHealthy(t, p)
	const tokens = 400
	body := fmt.Sprintf(`{"input_ids":[1,2,3],"sampling_params":{"max_new_tokens":%d,"ignore_eos":true},"stream":true}`, tokens)
	resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/generate", port), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Stop while the stream is in flight: after its first chunks.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	last, seen := 0, 0
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if line == sc.Text() || line == "[DONE]" {
			continue
		}
		var ev struct {
			Meta struct {
				Completion int `json:"completion_tokens"`
			} `json:"meta_info"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil {
			last = ev.Meta.Completion
		}
		if seen++; seen == 20 {
			_ = p.Cmd.Process.Signal(sig)
		}
	}
	if last != tokens {
		t.Errorf("the stream ended at %d of %d tokens: the stop cut it", last, tokens)
	}
	p.Wait(t, commandTimeout)
	if !strings.Contains(p.Stderr(), "it drained and stopped by itself") {
		t.Errorf("the exit line does not say the server drained:\n%s", p.Stderr())
	}
	if !strings.Contains(p.Stderr(), "SIGTERM to its main process") {
		t.Errorf("SIGTERM did not go to the main process only:\n%s", p.Stderr())
	}
}
