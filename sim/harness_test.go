package sim

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous limits: the tests must hold on a loaded 2-core machine under -race.
const (
	startTimeout = 45 * time.Second // python start-up, simulated load, warm-up
	exitTimeout  = 20 * time.Second // from a signal or a crash to the exit status
	httpTimeout  = 10 * time.Second
	waitDelay    = 3 * time.Second // the escaped worker keeps our pipes open
	pollInterval = 10 * time.Millisecond
)

// The model path the tests launch with; the sim loads nothing.
const testModel = "sim-test/Llama-3.1-8B-Instruct"

// simDir is the unpacked sim, shared by every test in the package.
var simDir string

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "sglaunch-sim-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	simDir, err = Ensure(context.Background(), root, catalog.SGLangArgsJSON())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// output collects a child's stream and wakes waiters on every write.
type output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	close(o.changed)
	o.changed = make(chan struct{})
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func (o *output) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Len()
}

// waitFor reports whether substr appears within timeout.
func (o *output) waitFor(substr string, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		o.mu.Lock()
		found := strings.Contains(o.buf.String(), substr)
		ch := o.changed
		o.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
}

// simProc is one simulated server started through the real python3.
type simProc struct {
	t      testing.TB
	cmd    *exec.Cmd
	port   int
	marker string // SIM_TEST_INSTANCE value, to find this server's processes
	stdout *output
	stderr *output
	done   chan struct{}
	err    error // from cmd.Wait, valid once done is closed
}

func randomMarker(t testing.TB) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// simEnv is the environment of a test server: ours minus any SGLANG_* or
// PYTHON* settings, plus the sim on PYTHONPATH, fast load defaults, and the
// caller's extra variables (which win). SPT_NOENV=1 keeps the workers'
// /proc/PID/environ readable under the setproctitle package, which
// processes() relies on; the test of the overwritten environ removes it
// (sglaunch's own launches do not set it).
func simEnv(marker string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SGLANG_") || strings.HasPrefix(kv, "SGL_") || strings.HasPrefix(kv, "PYTHON") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PYTHONPATH="+simDir,
		"SIM_TEST_INSTANCE="+marker,
		"SGLANG_SIM_LOAD_SECONDS=0.2",
		"SGLANG_SIM_WARMUP_SECONDS=0.05",
		"SPT_NOENV=1",
	)
	return append(env, extra...)
}

// dropUnset removes every NAME that a later "NAME=" entry unsets, and the
// "NAME=" entries themselves.
func dropUnset(env []string) []string {
	unset := map[string]bool{}
	for _, kv := range env {
		if name, ok := strings.CutSuffix(kv, "="); ok && !strings.Contains(name, "=") {
			unset[name] = true
		}
	}
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !unset[name] {
			out = append(out, kv)
		}
	}
	return out
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// startSim starts `python3 -m sglang.launch_server` with args, adding a
// model path and a free port unless args carry them.
func startSim(t testing.TB, env []string, args ...string) *simProc {
	t.Helper()
	return startSimWith(t, "python3", env, args...)
}

// startSimWith is startSim with another interpreter; an env entry "NAME="
// with no value removes NAME from the server's environment.
func startSimWith(t testing.TB, python string, env []string, args ...string) *simProc {
	t.Helper()
	p := &simProc{t: t, marker: randomMarker(t), stdout: newOutput(), stderr: newOutput(), done: make(chan struct{})}
	if !hasFlag(args, "--model-path") {
		args = append([]string{"--model-path", testModel}, args...)
	}
	if !hasFlag(args, "--port") {
		p.port = testkit.FreePort(t)
		args = append(args, "--port", strconv.Itoa(p.port))
	}
	p.cmd = exec.Command(python, append([]string{"-m", "sglang.launch_server"}, args...)...)
	p.cmd.Env = dropUnset(simEnv(p.marker, env...))
	p.cmd.Dir = t.TempDir() // not sim/, whose source tree python3 -m would import first
	p.cmd.Stdout = p.stdout
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.WaitDelay = waitDelay
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start sim: %v", err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		for _, pid := range p.processes() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-p.done:
		case <-time.After(exitTimeout):
			t.Errorf("sim pid %d did not exit after SIGKILL", p.cmd.Process.Pid)
		}
		if t.Failed() {
			t.Logf("sim stderr:\n%s", tail(p.stderr.String(), 60))
			t.Logf("sim stdout:\n%s", tail(p.stdout.String(), 20))
		}
	})
	return p
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

func (p *simProc) pid() int { return p.cmd.Process.Pid }

func (p *simProc) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", p.port, path) }

func (p *simProc) waitReady() {
	p.t.Helper()
	if !p.stderr.waitFor("The server is fired up and ready to roll!", startTimeout) {
		p.t.Fatalf("no ready line within %v", startTimeout)
	}
}

// waitExit waits for the server to exit and returns its wait status.
func (p *simProc) waitExit() syscall.WaitStatus {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(exitTimeout):
		p.t.Fatalf("sim did not exit within %v", exitTimeout)
	}
	return p.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

func (p *simProc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal %v: %v", sig, err)
	}
}

// processes lists live (non-zombie) processes carrying this server's marker
// in their environment: the server and every worker it started.
func (p *simProc) processes() []int {
	return processesWithEnv("SIM_TEST_INSTANCE=" + p.marker)
}

func processesWithEnv(kv string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == kv {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// procInfo is what the tests read from /proc/PID/stat and friends.
type procInfo struct {
	pid, ppid, pgid, sid int
	state                string
	comm                 string
	cmdline              []string
	environ              map[string]string
}

func readProc(pid int) (procInfo, error) {
	info := procInfo{pid: pid}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return info, err
	}
	s := string(stat)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < 0 {
		return info, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	info.comm = s[open+1 : end]
	f := strings.Fields(s[end+2:])
	info.state = f[0]
	info.ppid, _ = strconv.Atoi(f[1])
	info.pgid, _ = strconv.Atoi(f[2])
	info.sid, _ = strconv.Atoi(f[3])
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		info.cmdline = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	info.environ = map[string]string{}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil {
		for _, kv := range strings.Split(string(b), "\x00") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				info.environ[k] = v
			}
		}
	}
	return info, nil
}

// children lists the live direct children of pid.
func children(pid int) []procInfo {
	var out []procInfo
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		info, err := readProc(n)
		if err == nil && info.ppid == pid && info.state != "Z" {
			out = append(out, info)
		}
	}
	return out
}

func alive(pid int) bool {
	info, err := readProc(pid)
	return err == nil && info.state != "Z"
}

var client = &http.Client{Timeout: httpTimeout}

// get returns the status and body of a GET.
func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, body
}

func postJSON(t testing.TB, url string, req any) *http.Response {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// runOnce runs the launcher to completion (for flag errors and --help).
func runOnce(t testing.TB, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", append([]string{"-m", "sglang.launch_server"}, args...)...)
	cmd.Env = simEnv(randomMarker(t), env...)
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run sim: %v", err)
		}
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}
