package bench

import (
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

func TestRunnerRun(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, APIKey: "k3y"})
	defer srv.Close()
	var progress, output strings.Builder
	r := &Runner{
		Target:   Target{URL: srv.URL, APIKey: "k3y", Python: "python3", Environ: []string{"PATH=" + os.Getenv("PATH")}},
		Progress: &progress, Output: &output,
	}
	load := workload.Workload{Name: "tiny", API: loadgen.Generate, InputLen: 8, OutputLen: 4, Concurrency: []int{1, 2}, Requests: 2, Warmup: 1, Seed: 1}
	echo := workload.Workload{Name: "echo", Shell: true, Command: []string{`echo "{{.Model}} $OPENAI_API_KEY"; echo '{"completed": 7}' > {{.ResultFile}}`}}
	fail := workload.Workload{Name: "fail", Command: []string{"false"}}
	never := workload.Workload{Name: "never", API: loadgen.Chat, InputLen: 8, OutputLen: 4, Concurrency: []int{1}, Requests: 1}
	rec := NewRecord(time.Now())
	err := r.Run(t.Context(), rec, []workload.Workload{load, echo, fail, never})
	if err == nil || !strings.Contains(err.Error(), "workload fail: fail: command exited with status 1") {
		t.Fatalf("got %v, want the failing workload named", err)
	}
	var statuses []string
	for _, w := range rec.Results {
		statuses = append(statuses, w.Workload.Name+"="+w.Status)
	}
	if got := strings.Join(statuses, " "); got != "tiny=ok echo=ok fail=failed never=skipped" {
		t.Errorf("got %s", got)
	}
	tiny := rec.Results[0]
	if len(tiny.Levels) != 2 || tiny.Levels[1].Concurrency != 2 || tiny.Levels[0].Metrics.Completed != 2 {
		t.Fatalf("got levels %+v", tiny.Levels)
	}
	if tiny.Levels[0].AcceptLength != 2.5 {
		t.Errorf("accept length: got %v, want 2.5 from /server_info", tiny.Levels[0].AcceptLength)
	}
	if tiny.Levels[0].Metrics.DecodeRate == 0 || tiny.Levels[1].Metrics.DecodeRate != 0 {
		t.Errorf("decode rate should be set at concurrency 1 only: %+v", tiny.Levels)
	}
	// The command's output is kept with the API key masked: the key in
	// the clear must fail the test.
	if x := rec.Results[1].External; x == nil || !strings.Contains(x.Output, "stub-model <redacted>") || strings.Contains(x.Output, "k3y") || x.Metrics["completed"] != 7 {
		t.Errorf("echo: got %+v, want the output with the key masked and completed 7", x)
	}
	if !strings.Contains(progress.String(), "tiny c=1: 2 ok") || !strings.Contains(output.String(), "stub-model") {
		t.Errorf("progress %q, output %q", progress.String(), output.String())
	}
}

func TestRunnerCheck(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{})
	r := &Runner{Target: Target{URL: srv.URL}}
	if err := r.Check(t.Context()); err != nil {
		t.Errorf("a live server: %v", err)
	}
	srv.Close()
	if err := r.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "cannot reach the server at "+srv.URL) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a closed port: got %v", err)
	}
}

func TestRunnerServerGone(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{})
	url := srv.URL
	srv.Close()
	rec := NewRecord(time.Now())
	r := &Runner{Target: Target{URL: url}}
	w := workload.Workload{Name: "w", API: loadgen.Generate, InputLen: 4, OutputLen: 4, Concurrency: []int{1}, Requests: 3}
	err := r.Run(t.Context(), rec, []workload.Workload{w})
	if err == nil || !strings.Contains(err.Error(), "server stopped accepting connections") {
		t.Errorf("got %v, want the server gone", err)
	}
	if len(rec.Results) != 1 || rec.Results[0].Status != StatusFailed {
		t.Errorf("got %+v, want the workload recorded as failed", rec.Results)
	}
}

func TestHostPort(t *testing.T) {
	for _, tt := range []struct {
		url  string
		host string
		port int
	}{{"http://127.0.0.1:30000", "127.0.0.1", 30000}, {"http://[::1]:8080", "::1", 8080}, {"https://example.com", "example.com", 443}, {"http://h", "h", 80}} {
		h, p := hostPort(tt.url)
		if h != tt.host || p != tt.port {
			t.Errorf("hostPort(%s): got %s %d, want %s %d", tt.url, h, p, tt.host, tt.port)
		}
	}
}
