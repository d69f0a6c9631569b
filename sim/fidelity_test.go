package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// The tests of this file pin behaviours the simulator mirrors from SGLang;
// sim/README.md's fidelity table names the SGLang source of each.

// workers returns the server's children by the title /proc/PID/cmdline
// shows (setproctitle rewrites argv).
func workers(t *testing.T, p *simProc) map[string]procInfo {
	t.Helper()
	out := map[string]procInfo{}
	for _, k := range children(p.pid()) {
		if len(k.cmdline) > 0 {
			out[k.cmdline[0]] = k
		}
	}
	return out
}

// TestSetproctitleOverwritesWorkerEnviron: SGLang titles its workers with
// setproctitle, which without SPT_NOENV takes over the environ area, so a
// worker's /proc/PID/environ reads back as NUL bytes. verify read nothing
// from such workers. With SPT_NOENV=1 the environ stays readable.
func TestSetproctitleOverwritesWorkerEnviron(t *testing.T) {
	t.Parallel()
	py := testkit.PythonWithSetproctitle(t)
	for _, noenv := range []bool{false, true} {
		t.Run(fmt.Sprintf("SPT_NOENV=%v", noenv), func(t *testing.T) {
			t.Parallel()
			env := []string{"SPT_NOENV=", "SIM_TEST_MARKER=42"}
			if noenv {
				env = []string{"SPT_NOENV=1", "SIM_TEST_MARKER=42"}
			}
			p := startSimWith(t, py, env, "--tp", "2")
			p.waitReady()
			w := workers(t, p)
			for _, title := range []string{"sglang::scheduler_TP0", "sglang::scheduler_TP1", "sglang::detokenizer"} {
				k, ok := w[title]
				if !ok {
					t.Fatalf("no worker titled %s among %v", title, slices.Collect(mapsKeys(w)))
				}
				raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", k.pid))
				if err != nil {
					t.Fatal(err)
				}
				allNUL := len(raw) > 0 && len(bytes.Trim(raw, "\x00")) == 0
				if !noenv && !allNUL {
					t.Errorf("%s: /proc/PID/environ holds %q, want NUL bytes only", title, raw[:min(len(raw), 60)])
				}
				if noenv && k.environ["SIM_TEST_MARKER"] != "42" {
					t.Errorf("%s: environ lacks SIM_TEST_MARKER=42 under SPT_NOENV=1", title)
				}
			}
			// The main process is not retitled: its environ stays readable.
			main, _ := readProc(p.pid())
			if main.environ["SIM_TEST_MARKER"] != "42" {
				t.Errorf("the server's own environ is unreadable")
			}
		})
	}
}

func mapsKeys(m map[string]procInfo) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestSchedulerTitlesAndPrefixes: titles and log prefixes as
// configure_scheduler_process builds them: nothing at tp 1, then PP, TP and
// EP parts only for sizes above 1.
func TestSchedulerTitlesAndPrefixes(t *testing.T) {
	t.Parallel()
	py := testkit.PythonWithSetproctitle(t)
	tests := []struct {
		args     []string
		titles   []string
		prefixes []string
	}{
		{nil, []string{"sglang::scheduler"}, []string{"] Load weight begin."}},
		{[]string{"--tp", "2", "--ep", "2"}, []string{"sglang::scheduler_TP0_EP0", "sglang::scheduler_TP1_EP1"}, []string{" TP0 EP0] Load weight begin.", " TP1 EP1] Load weight begin."}},
		{[]string{"--tp", "2", "--pp-size", "2"}, []string{"sglang::scheduler_PP0_TP0", "sglang::scheduler_PP1_TP1"}, []string{" PP1 TP0] Load weight begin."}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			p := startSimWith(t, py, nil, tt.args...)
			p.waitReady()
			w := workers(t, p)
			for _, title := range tt.titles {
				if _, ok := w[title]; !ok {
					t.Errorf("no worker titled %s among %v", title, slices.Collect(mapsKeys(w)))
				}
			}
			for _, pre := range tt.prefixes {
				if !strings.Contains(p.stderr.String(), pre) {
					t.Errorf("log lacks %q", pre)
				}
			}
			if len(tt.args) == 0 && strings.Contains(p.stderr.String(), " TP0]") {
				t.Errorf("tp 1 logs a TP0 prefix; SGLang logs none")
			}
		})
	}
}

// stream400 starts a 400-token stream and returns a channel that yields
// the number of tokens received and whether [DONE] came.
func stream400(t *testing.T, p *simProc) (<-chan [2]int, *bufio.Reader) {
	t.Helper()
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids": []int{1, 2, 3}, "sampling_params": map[string]any{"max_new_tokens": 400}, "stream": true,
	})
	t.Cleanup(func() { resp.Body.Close() })
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	out := make(chan [2]int, 1)
	go func() {
		tokens, done := 1, 0
		for {
			line, err := r.ReadString('\n')
			if d, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
				if d == "[DONE]" {
					done = 1
				} else {
					var ev struct {
						Meta struct {
							Completion int `json:"completion_tokens"`
						} `json:"meta_info"`
					}
					if json.Unmarshal([]byte(d), &ev) == nil {
						tokens = ev.Meta.Completion
					}
				}
			}
			if err != nil {
				out <- [2]int{tokens, done}
				return
			}
		}
	}()
	return out, r
}

// TestSIGTERMToServerCompletesLongStream: a SIGTERM to the main process
// only drains as tokenizer_manager.py does: /health turns 503, the
// 400-token stream in flight completes, then the server kills its tree and
// itself (137).
func TestSIGTERMToServerCompletesLongStream(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_ITL_MS=5", "SGLANG_SIM_DRAIN_POLL_SECONDS=0.25"}, "--tp", "2")
	p.waitReady()
	res, _ := stream400(t, p)
	p.signal(syscall.SIGTERM)
	if !p.stderr.waitFor("SIGTERM received. signum=None frame=None. Draining requests and shutting down...", exitTimeout) {
		t.Fatal("no SIGTERM log line")
	}
	if code, _ := get(t, p.url("/health")); code != http.StatusServiceUnavailable {
		t.Errorf("/health while draining: got %d, want 503", code)
	}
	got := <-res
	if got != [2]int{400, 1} {
		t.Errorf("stream: got %d tokens, [DONE]=%v; want all 400 and [DONE]", got[0], got[1] == 1)
	}
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit: got %v, want killed by SIGKILL (137)", ws)
	}
	logs := p.stderr.String()
	for _, want := range []string{
		"Gracefully exiting... Remaining number of requests 1. Remaining requests remaining_rids=['",
		"Gracefully exiting... Remaining number of requests 0. Remaining requests remaining_rids=[].",
		"kill_process_tree called: parent_pid=" + fmt.Sprint(p.pid()) + ", include_parent=True",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(logs, "crashed with exit code") {
		t.Errorf("the schedulers' exits after ShutdownReq were reported as crashes")
	}
}

// TestSIGTERMToGroupCutsStream: the ranks install no SIGTERM handler, so a
// SIGTERM to the whole process group kills them at once; the main
// process's subprocess watchdog sees the dead ranks and SIGQUIT kills the
// tree: the stream in flight is cut.
func TestSIGTERMToGroupCutsStream(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_ITL_MS=5"}, "--tp", "2")
	p.waitReady()
	res, _ := stream400(t, p)
	if err := syscall.Kill(-p.pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	got := <-res
	if got[0] >= 400 || got[1] == 1 {
		t.Errorf("stream: got %d tokens, [DONE]=%v; want it cut", got[0], got[1] == 1)
	}
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit: got %v, want killed by SIGKILL (137)", ws)
	}
	logs := p.stderr.String()
	if !regexp.MustCompile(`Subprocess (scheduler_\d|detokenizer) \(pid=\d+\) crashed with exit code -15\. Triggering SIGQUIT for cleanup\.\.\.`).MatchString(logs) {
		t.Errorf("no watchdog line for a worker killed by SIGTERM")
	}
	if !strings.Contains(logs, "SIGQUIT received. signum=None, frame=None. It usually means one child failed.") {
		t.Errorf("no SIGQUIT line")
	}
}

// TestCrashDuringLoadIsKilledBySignal9: a rank that fails during the load
// sends SIGQUIT; the server kills its tree and itself, so it ends with 137
// as SGLang does (SGLANG_SIM_CRASH_EXIT_CODE overrides it).
func TestCrashDuringLoadIsKilledBySignal9(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_LOAD_SECONDS=1.0", "SGLANG_SIM_CRASH_DURING_LOAD=0.3"}, "--tp", "2")
	if ws := p.waitExit(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit: got %v, want killed by SIGKILL (137)", ws)
	}
	if !strings.Contains(p.stderr.String(), "Received sigquit from a child process. It usually means the child failed.") {
		t.Errorf("no launch-phase SIGQUIT line")
	}
}

// TestHealthSleepsBeforeItsCheck: /health runs a one-token generation and
// checks for it after sleep(1): a healthy probe takes a second.
func TestHealthSleepsBeforeItsCheck(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil)
	p.waitReady()
	start := time.Now()
	if code, _ := get(t, p.url("/health")); code != http.StatusOK {
		t.Fatalf("/health: got %d, want 200", code)
	}
	if d := time.Since(start); d < time.Second || d > 3*time.Second {
		t.Errorf("/health took %v, want about 1s (SGLang's sleep(1) before the first check)", d)
	}
}

// TestSpeculativeChunksAndAcceptLength: under --speculative-algorithm each
// decode step streams its accepted tokens in one chunk; completion_tokens
// counts tokens; the spec_* fields come on the last chunk only;
// avg_spec_accept_length reflects the accept length once
// --decode-log-interval decode batches (3 here) have run; a /flush_cache
// when idle resets it.
func TestSpeculativeChunksAndAcceptLength(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_SIM_ACCEPT_LENGTH=3", "SGLANG_SIM_ITL_MS=2", "SGLANG_SIM_TTFT_MS=5"},
		"--speculative-algorithm", "EAGLE3", "--speculative-num-draft-tokens", "4", "--decode-log-interval", "3")
	p.waitReady()
	accept := func() (float64, bool) {
		_, body := get(t, p.url("/server_info"))
		var info struct {
			States []map[string]any `json:"internal_states"`
		}
		if err := json.Unmarshal(body, &info); err != nil || len(info.States) != 1 {
			t.Fatalf("/server_info: %v %s", err, body)
		}
		v, ok := info.States[0]["avg_spec_accept_length"].(float64)
		return v, ok
	}
	if _, ok := accept(); ok {
		t.Errorf("avg_spec_accept_length before any verify step; SGLang reports it once one ran")
	}
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids": []int{1, 2, 3}, "sampling_params": map[string]any{"max_new_tokens": 10}, "stream": true,
	})
	events := sseEvents(t, resp.Body)
	resp.Body.Close()
	var counts []int
	var last map[string]any
	for _, e := range events[:len(events)-1] {
		var ev struct {
			Meta map[string]any `json:"meta_info"`
		}
		if err := json.Unmarshal([]byte(e), &ev); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, int(ev.Meta["completion_tokens"].(float64)))
		if _, ok := ev.Meta["spec_verify_ct"]; ok && ev.Meta["finish_reason"] == nil {
			t.Errorf("spec_verify_ct on an unfinished chunk: SGLang adds the spec fields when the request finishes: %s", e)
		}
		last = ev.Meta
	}
	if want := []int{1, 4, 7, 10}; !slices.Equal(counts, want) {
		t.Errorf("completion_tokens per chunk: got %v, want %v (the prefill token, then 3 per step)", counts, want)
	}
	if last["spec_verify_ct"] != 3.0 || math.Abs(last["spec_accept_length"].(float64)-10.0/3) > 1e-6 {
		t.Errorf("spec meta_info: got verify_ct=%v accept_length=%v, want 3 and 10/3", last["spec_verify_ct"], last["spec_accept_length"])
	}
	if v, ok := accept(); !ok || v != 3 {
		t.Errorf("avg_spec_accept_length: got %v (%v), want 3", v, ok)
	}
	if code, body := get(t, p.url("/flush_cache")); code != http.StatusOK || !strings.HasPrefix(string(body), "Cache flushed.") {
		t.Errorf("/flush_cache: got %d %q", code, body)
	}
	if _, ok := accept(); ok {
		t.Errorf("avg_spec_accept_length after /flush_cache; SGLang resets its counters")
	}
}

// TestSGLangSetsItsEnvironment: the variables SGLang sets for itself reach
// every worker: SGLANG_RUN_ID, the cache directories set on import, the
// NCCL/CUDA defaults, and under --enable-deterministic-inference with tp > 1
// an NCCL_ALGO that overwrites the launcher's.
func TestSGLangSetsItsEnvironment(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"NCCL_ALGO=Ring", "HOME=/nonexistent-home"}, "--tp", "2", "--enable-deterministic-inference")
	p.waitReady()
	w := workers(t, p)
	k, ok := w["sglang::scheduler_TP1"]
	if !ok {
		// Without setproctitle the argv is the sim's; find rank 1 by it.
		for _, c := range children(p.pid()) {
			if slices.Contains(c.cmdline, "sglang::scheduler_TP1") {
				k, ok = c, true
			}
		}
	}
	if !ok {
		t.Fatal("no rank 1")
	}
	want := map[string]string{
		"NCCL_ALGO": "allreduce:tree", "NCCL_MIN_NCHANNELS": "8", "NCCL_MAX_NCHANNELS": "8",
		"NCCL_CUMEM_ENABLE": "0", "NCCL_NVLS_ENABLE": "0", "CUDA_DEVICE_MAX_CONNECTIONS": "8",
		"TRTLLM_ENABLE_PDL": "1", "CUTE_DSL_LOG_LEVEL": "30",
		"CUTE_DSL_LOG_TO_CONSOLE": "1",
		"CUDA_CACHE_PATH":         "/nonexistent-home/.cache/sglang/nv",
		"TRITON_CACHE_DIR":        "/nonexistent-home/.cache/sglang/triton",
		"TORCHINDUCTOR_CACHE_DIR": "/nonexistent-home/.cache/sglang/inductor",
		// ServerArgs' own writes (issue 20), from the generated table.
		"SGLANG_ENABLE_TORCH_COMPILE": "0", "SGLANG_DISABLE_OUTLINES_DISK_CACHE": "0",
		"SGLANG_ENABLE_DETERMINISTIC_INFERENCE": "1", "SGLANG_USE_CUDA_IPC_TRANSPORT": "0",
		"SGLANG_FLASHINFER_MOE_FUSED_FINALIZE": "0",
	}
	for name, v := range want {
		if k.environ[name] != v {
			t.Errorf("rank 1 %s: got %q, want %q", name, k.environ[name], v)
		}
	}
	// SGLang stopped setting CUDA_MODULE_LOADING (PR #35711, 2026-08-21).
	if v, ok := k.environ["CUDA_MODULE_LOADING"]; ok {
		t.Errorf("rank 1 CUDA_MODULE_LOADING=%q: SGLang main no longer sets it", v)
	}
	// Each variable the sim sets is one SGLang's source writes, in the
	// generated table for the sim's version.
	tables, err := sglangtab.For(Version)
	if err != nil || !tables.Exact {
		t.Fatalf("tables for the sim's version %s: %+v %v", Version, tables.Meta, err)
	}
	written := map[string]bool{}
	for _, w := range tables.EnvWrites {
		written[w.Name] = true
	}
	for name := range want {
		if !written[name] {
			t.Errorf("the sim sets %s, which SGLang %s's env_writes table does not hold", name, Version)
		}
	}
	if !regexp.MustCompile(`^sglang-run-\d+\.\d+-\d+$`).MatchString(k.environ["SGLANG_RUN_ID"]) {
		t.Errorf("SGLANG_RUN_ID: got %q", k.environ["SGLANG_RUN_ID"])
	}
	if !strings.Contains(p.stderr.String(), "NCCL_ALGO is set to 'allreduce:tree', the NCCL channel count is pinned") {
		t.Errorf("no deterministic-inference warning")
	}
}

// TestSpecV2WarnsWhenSet: SGLANG_ENABLE_SPEC_V2 is removed, but setting it is
// not silent: SGLang logs a warning (arg_groups/speculative_hook.py).
func TestSpecV2WarnsWhenSet(t *testing.T) {
	t.Parallel()
	p := startSim(t, []string{"SGLANG_ENABLE_SPEC_V2=True"})
	p.waitReady()
	if !strings.Contains(p.stderr.String(), "SGLANG_ENABLE_SPEC_V2 has been removed: speculative decoding always runs the V2 worker. Use --disable-overlap-schedule to select the non-overlap (synchronous) path.") {
		t.Errorf("no SGLANG_ENABLE_SPEC_V2 warning")
	}
}

// TestCaptureLines: the capture lines of each release the sim speaks:
// current (v0.5.16+), v0.5.15 (PR #28937) and v0.5.10, and the draft lines
// of speculative decoding, which only rank 0 logs in the new form.
func TestCaptureLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format string
		spec   bool
		want   []string
		absent []string
	}{
		{"current", false, []string{
			" TP1] Capture target prefill CUDA graph begin. backend=breakable, num_tokens=[",
			" TP1] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[",
			" TP1] Capture target decode CUDA graph end. elapsed=",
		}, []string{"Capture cuda graph"}},
		{"v0.5.15", false, []string{" TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_bs=1, bs=["}, nil},
		{"current", true, []string{
			" TP1] Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, bs=[",
			" TP0] Capture draft decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[",
			" TP0] Capture draft extend CUDA graph begin. backend=full, num_tokens_per_req=4, bs=[",
		}, []string{" TP1] Capture draft"}},
		{"v0.5.10", false, []string{
			" TP1] KV Cache is allocated. #tokens: ",
			" TP1] Capture cuda graph begin. This can take up to several minutes. avail mem=",
			" TP1] Capture cuda graph end. Time elapsed: ",
			" TP1] Capture piecewise CUDA graph begin. avail mem=",
		}, []string{"Capture target"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s spec=%v", tt.format, tt.spec), func(t *testing.T) {
			t.Parallel()
			args := []string{"--tp", "2"}
			if tt.spec {
				args = append(args, "--speculative-algorithm", "EAGLE3")
			}
			p := startSim(t, []string{"SGLANG_SIM_LOG_FORMAT=" + tt.format}, args...)
			p.waitReady()
			logs := p.stderr.String()
			for _, s := range tt.want {
				if !strings.Contains(logs, s) {
					t.Errorf("log lacks %q", s)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(logs, s) {
					t.Errorf("log has %q", s)
				}
			}
		})
	}
}

// TestHTTP2LogsGranian: under --enable-http2 SGLang serves with the embedded
// Granian server, which logs its own bind line instead of uvicorn's.
func TestHTTP2LogsGranian(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--enable-http2")
	p.waitReady()
	if !p.stdout.waitFor(fmt.Sprintf("[INFO] Listening at: http://127.0.0.1:%d\n", p.port), time.Second) {
		t.Errorf("stdout lacks Granian's Listening at line:\n%s", p.stdout.String())
	}
	if strings.Contains(p.stderr.String(), "Uvicorn running on") {
		t.Errorf("uvicorn's line under --enable-http2")
	}
}
