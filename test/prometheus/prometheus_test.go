package prometheus

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds for a loaded 2-core machine.
const (
	startTimeout = 60 * time.Second
	// loadSeconds makes the load long enough for many scrapes of it.
	loadSeconds    = 6
	scrapeInterval = 500 * time.Millisecond
)

var sglaunchBin, cacheDir string

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithWorkspace(m, "sglaunch-prometheus-", func(w *testkit.Workspace) error {
		sglaunchBin, cacheDir = w.Bin, w.Cache
		return nil
	}))
}

// started runs cmd in its own process group, killed with the group at
// the end of the test; the channel is closed when cmd has exited.
func started(t *testing.T, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return done
}

func get(url string) (int, []byte, error) {
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// promResult is the data of a Prometheus API answer: a matrix or a vector.
type promResult struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

func query(t *testing.T, base, path string, params url.Values) promResult {
	t.Helper()
	code, body, err := get(base + path + "?" + params.Encode())
	if err != nil || code != 200 {
		t.Fatalf("Prometheus %s %v: %d %v\n%s", path, params, code, err, body)
	}
	var r promResult
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("Prometheus %s: %v %s\n%s", path, err, r.Error, body)
	}
	return r
}

func sampleValue(v [2]any) (time.Time, float64) {
	ts, _ := v[0].(float64)
	f, _ := strconv.ParseFloat(fmt.Sprint(v[1]), 64)
	return time.Unix(0, int64(ts*1e9)), f
}

// TestPrometheusScrapesServe: a real Prometheus scrapes `sglaunch serve`
// of a demo profile with a slow load through its load and ready; its API
// then shows a start-up phase at 1 before ready was, ready at 1 after,
// and the load duration /status reports.
func TestPrometheusScrapesServe(t *testing.T) {
	prom := testkit.NeedTool(t, "prometheus", "prometheus")
	dir := t.TempDir()
	statusAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	promAddr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	promBase := "http://" + promAddr
	statusBase := "http://" + statusAddr

	// Prometheus first, so that it scrapes the launch from its start.
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: 400ms
scrape_configs:
  - job_name: sglaunch
    static_configs:
      - targets: [%q]
`, scrapeInterval, statusAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	promLog := &testkit.SyncBuffer{}
	pcmd := exec.Command(prom, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+promAddr, "--storage.tsdb.retention.time=1h", "--log.level=warn")
	pcmd.Dir, pcmd.Stdout, pcmd.Stderr = dir, promLog, promLog
	started(t, pcmd)
	testkit.WaitFor(t, startTimeout, "Prometheus ready", func() bool {
		code, _, _ := get(promBase + "/-/ready")
		return code == 200
	})

	// The demo, slower: loading is seen in several scrapes.
	profiles := filepath.Join(dir, "config", "sglaunch", "profiles")
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(profiles, "demo-slow.yaml"), []byte(fmt.Sprintf(
		"extends: demo\nenv:\n  SGLANG_SIM_LOAD_SECONDS: \"%d\"\nargs:\n  port: %d\n", loadSeconds, testkit.FreePort(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &testkit.SyncBuffer{}
	scmd := exec.Command(sglaunchBin, "serve", "--profile", "demo-slow", "--status-addr", statusAddr)
	scmd.Dir, scmd.Stdout, scmd.Stderr = dir, out, out
	scmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_CACHE_HOME=" + cacheDir,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(dir, "state"), "SGLAUNCH_RUNTIME_DIR=" + filepath.Join(dir, "run"),
	}
	begin := time.Now()
	exited := started(t, scmd)
	testkit.WaitFor(t, startTimeout, "sglaunch ready", func() bool {
		select {
		case <-exited:
			t.Fatalf("sglaunch exited:\n%s", out)
		default:
		}
		code, _, _ := get(statusBase + "/readyz")
		return code == 200
	})
	_, body, err := get(statusBase + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var status struct {
		Fingerprint string `json:"fingerprint"`
		Load        struct {
			Seconds float64 `json:"load_time_s"`
		} `json:"load"`
	}
	if err := json.Unmarshal(body, &status); err != nil || status.Load.Seconds < loadSeconds {
		t.Fatalf("/status: %v, load %v s, want at least %d\n%s", err, status.Load.Seconds, loadSeconds, body)
	}
	// Let Prometheus scrape ready a few times.
	fp := status.Fingerprint[:12]
	testkit.WaitFor(t, startTimeout, "Prometheus has scraped ready", func() bool {
		r := query(t, promBase, "/api/v1/query", url.Values{"query": {fmt.Sprintf(`sglaunch_phase{phase="ready",fingerprint=%q} == 1`, fp)}})
		return len(r.Data.Result) == 1
	})
	end := time.Now()

	// The phase change: the first scrape of each phase at 1.
	r := query(t, promBase, "/api/v1/query_range", url.Values{
		"query": {`sglaunch_phase{job="sglaunch",profile="demo-slow"} == 1`},
		"start": {strconv.FormatInt(begin.Add(-time.Second).Unix(), 10)},
		"end":   {strconv.FormatInt(end.Add(time.Second).Unix(), 10)},
		"step":  {"0.5"},
	})
	first := map[string]time.Time{}
	for _, s := range r.Data.Result {
		if len(s.Values) > 0 {
			at, _ := sampleValue(s.Values[0])
			first[s.Metric["phase"]] = at
		}
	}
	var seen []string
	for p := range first {
		seen = append(seen, p)
	}
	sort.Slice(seen, func(i, j int) bool { return first[seen[i]].Before(first[seen[j]]) })
	t.Logf("phases Prometheus saw at 1, in order: %s", strings.Join(seen, ", "))
	ready, ok := first["ready"]
	loading := ""
	for _, p := range []string{"loading_weights", "weights_loaded", "kv_cache_allocated", "capturing_cuda_graphs", "cuda_graphs_captured"} {
		if at, seenIt := first[p]; seenIt && at.Before(ready) {
			loading = p
		}
	}
	if !ok || loading == "" {
		t.Errorf("Prometheus saw phases %v; want a loading phase at 1 before ready", seen)
	}

	// The load duration, as /status says.
	r = query(t, promBase, "/api/v1/query", url.Values{"query": {`sglaunch_load_duration_seconds{job="sglaunch",profile="demo-slow"}`}})
	if len(r.Data.Result) != 1 {
		t.Fatalf("sglaunch_load_duration_seconds: %d series, want 1", len(r.Data.Result))
	}
	_, got := sampleValue(r.Data.Result[0].Value)
	if diff := got - status.Load.Seconds; diff > 0.01 || diff < -0.01 {
		t.Errorf("sglaunch_load_duration_seconds: Prometheus has %.3f, /status says %.3f", got, status.Load.Seconds)
	}
	if lbl := r.Data.Result[0].Metric; lbl["fingerprint"] != fp || lbl["instance"] != statusAddr {
		t.Errorf("series labels %v, want fingerprint %s from instance %s", lbl, fp, statusAddr)
	}
	r = query(t, promBase, "/api/v1/query", url.Values{"query": {`up{job="sglaunch"}`}})
	if len(r.Data.Result) != 1 {
		t.Fatalf("up: %+v", r.Data.Result)
	}
	if _, up := sampleValue(r.Data.Result[0].Value); up != 1 {
		t.Errorf("up = %v: Prometheus could not scrape the status endpoint\n%s", up, promLog)
	}

	// sglaunch stops cleanly; Prometheus is stopped by the cleanup.
	_ = scmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(startTimeout):
		t.Errorf("sglaunch still running %v after SIGTERM:\n%s", startTimeout, out)
	}
}
