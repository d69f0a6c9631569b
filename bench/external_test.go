package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/proc"
)

// Generous bounds for commands on a loaded machine.
const commandBound = 30 * time.Second

func TestRunExternalCapturesOutputAndResult(t *testing.T) {
	tests := []struct {
		name        string
		script      string
		wantResult  string
		wantMetrics map[string]float64
	}{
		{"JSON", `echo '{"median_ttft_ms": 201.5, "backend": "sglang"}' > "$SGLAUNCH_BENCH_RESULT_FILE"`,
			`{"median_ttft_ms": 201.5, "backend": "sglang"}`, map[string]float64{"median_ttft_ms": 201.5}},
		{"JSON lines, the last one's numbers", `printf '{"completed": 1}\n{"completed": 2, "output_throughput": 9.5}\n' > {{.ResultFile}}`,
			`[{"completed":1},{"completed":2,"output_throughput":9.5}]`, map[string]float64{"completed": 2, "output_throughput": 9.5}},
		{"text", `echo 'plain words' > {{.ResultFile}}`, `"plain words"`, nil},
		{"no result file", `true`, ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := workload.Workload{Name: "x", Command: []string{"echo url={{.URL}} port={{.Port}} key=$OPENAI_API_KEY; " + tt.script}, Shell: true}
			var live strings.Builder
			res, err := runExternal(t.Context(), w, workload.TemplateData{URL: "http://h:9", Port: 9}, []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=k"}, "", &live)
			if err != nil {
				t.Fatalf("runExternal: %v", err)
			}
			if res.ExitCode != 0 || !strings.Contains(res.Output, "url=http://h:9 port=9 key=k") || live.String() != res.Output {
				t.Errorf("got exit %d, output %q (live %q)", res.ExitCode, res.Output, live.String())
			}
			if string(res.Result) != tt.wantResult {
				t.Errorf("result: got %s, want %s", res.Result, tt.wantResult)
			}
			if len(res.Metrics) != len(tt.wantMetrics) {
				t.Errorf("metrics: got %v, want %v", res.Metrics, tt.wantMetrics)
			}
			for k, v := range tt.wantMetrics {
				if res.Metrics[k] != v {
					t.Errorf("metric %s: got %v, want %v", k, res.Metrics[k], v)
				}
			}
			if tt.wantResult != "" && !json.Valid(res.Result) {
				t.Errorf("result is not JSON: %s", res.Result)
			}
		})
	}
}

func TestRunExternalFailures(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	res, err := runExternal(t.Context(), workload.Workload{Name: "x", Command: []string{"sh", "-c", "echo oops; exit 3"}}, workload.TemplateData{}, env, "", nil)
	if err == nil || !strings.Contains(err.Error(), "x: command exited with status 3: oops") || res.ExitCode != 3 {
		t.Errorf("got %v (exit %d), want exit status 3 with its last line", err, res.ExitCode)
	}
	_, err = runExternal(t.Context(), workload.Workload{Name: "x", Command: []string{"/nonexistent/tool"}}, workload.TemplateData{}, env, "", nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/tool") {
		t.Errorf("got %v, want a start error naming the tool", err)
	}
}

// TestRunExternalKillsItsGroup: a command that times out is stopped with
// everything it started, so nothing outlives the run.
func TestRunExternalKillsItsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	w := workload.Workload{Name: "slow", Shell: true, Timeout: workload.Duration(500 * time.Millisecond),
		Command: []string{"sleep 300 & echo $! > " + pidFile + "; trap '' TERM; wait"}}
	start := time.Now()
	_, err := runExternal(t.Context(), w, workload.TemplateData{}, []string{"PATH=" + os.Getenv("PATH")}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "timed out after 500ms") {
		t.Fatalf("got %v, want a timeout", err)
	}
	if d := time.Since(start); d > commandBound {
		t.Errorf("took %v", d)
	}
	waitGone(t, pidFile, "the command's child")
}

// TestRunExternalDaemonGoesWithIt: a command that exits leaving a daemon
// that holds its output returns at once, and the daemon goes with it.
func TestRunExternalDaemonGoesWithIt(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	w := workload.Workload{Name: "d", Shell: true, Command: []string{"sleep 300 & echo $! > " + pidFile + "; echo started"}}
	start := time.Now()
	res, err := runExternal(t.Context(), w, workload.TemplateData{}, []string{"PATH=" + os.Getenv("PATH")}, "", nil)
	if err != nil || res.ExitCode != 0 || res.Output != "started\n" {
		t.Fatalf("got %v, exit %d, output %q; want success", err, res.ExitCode, res.Output)
	}
	if d := time.Since(start); d > commandBound {
		t.Errorf("took %v", d)
	}
	waitGone(t, pidFile, "the command's daemon")
}

func TestRunExternalCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := runExternal(ctx, workload.Workload{Name: "x", Command: []string{"sleep", "300"}}, workload.TemplateData{}, []string{"PATH=" + os.Getenv("PATH")}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("got %v, want the cancellation", err)
	}
}

// TestCommandWorkloadOutputLeaksSecret pins issue 12 defect 3: a command
// workload gets OPENAI_API_KEY (and the plan's other secrets), and its
// output, stderr and result file went into the record and the terminal
// unmasked.
func TestCommandWorkloadOutputLeaksSecret(t *testing.T) {
	const key = "sk-test-0123456789"
	w := workload.Workload{Name: "x", Shell: true, Command: []string{
		`echo "out $OPENAI_API_KEY"; echo "err $OPENAI_API_KEY" >&2; printf '{"key": "%s", "n": 1}' "$OPENAI_API_KEY" > {{.ResultFile}}; echo --token tok-abcdef`}}
	var live strings.Builder
	res, err := runExternal(t.Context(), w, workload.TemplateData{}, []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=" + key}, "", &live)
	if err != nil {
		t.Fatalf("runExternal: %v", err)
	}
	for what, text := range map[string]string{"output": res.Output, "live output": live.String(), "result": string(res.Result)} {
		if strings.Contains(text, key) {
			t.Errorf("%s holds the key: %q", what, text)
		}
	}
	if !strings.Contains(res.Output, "out <redacted>") || !strings.Contains(res.Output, "err <redacted>") {
		t.Errorf("output: got %q", res.Output)
	}
	if !json.Valid(res.Result) || res.Metrics["n"] != 1 {
		t.Errorf("result: got %s, metrics %v", res.Result, res.Metrics)
	}
}

func TestRedactCommand(t *testing.T) {
	got := redactCommand([]string{"/bin/sh", "-c", "bench --api-key s3cret --url u", "--token", "t"})
	want := []string{"/bin/sh", "-c", "bench --api-key <redacted> --url u", "--token", "<redacted>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// waitGone waits for the process whose pid a command wrote to pidFile to
// be gone, and kills it and fails the test when it outlives commandBound.
func waitGone(t *testing.T, pidFile, what string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(commandBound)
	for proc.Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s %d outlived the command", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadResultNonFinite pins issue 13's interop defect: bench_serving
// writes its default infinite request rate as the bare word Infinity,
// which is not JSON, so the result was kept as one string and no metric
// was read.
func TestReadResultNonFinite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.jsonl")
	line1 := `{"backend": "sglang", "request_rate": Infinity, "max_concurrency": 8, "completed": 10, "median_ttft_ms": 101.5, "accept_length": NaN, "tag": "NaN in a string", "note": "say \"Infinity\""}`
	line2 := `{"request_rate": -Infinity, "completed": 12, "mean_itl_ms": 10.25}`
	if err := os.WriteFile(path, []byte(line1+"\n"+line2+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw, metrics := readResult(path)
	var items []map[string]any
	if err := json.Unmarshal(raw, &items); err != nil || len(items) != 2 {
		t.Fatalf("result %s: %v, want a list of two objects", raw, err)
	}
	if items[0]["request_rate"] != "Infinity" || items[0]["accept_length"] != "NaN" || items[1]["request_rate"] != "-Infinity" {
		t.Errorf("non-finite values: got %v, %v, %v", items[0]["request_rate"], items[0]["accept_length"], items[1]["request_rate"])
	}
	if items[0]["tag"] != "NaN in a string" || items[0]["note"] != `say "Infinity"` {
		t.Errorf("strings changed: %v / %v", items[0]["tag"], items[0]["note"])
	}
	if metrics["completed"] != 12 || metrics["mean_itl_ms"] != 10.25 {
		t.Errorf("metrics of the last line: got %v", metrics)
	}
	if _, ok := metrics["request_rate"]; ok {
		t.Errorf("a non-finite rate became a metric: %v", metrics)
	}
}
