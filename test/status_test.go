package test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Secrets the status tests put in a profile; none may appear in any
// metric, status field or status line.
const (
	secretAPIKey  = "sk-status-SECRET-4f9a1c"
	secretHFToken = "hf_statusSECRETtoken77"
)

// statusClient never waits long: the endpoint answers from memory.
var statusClient = &http.Client{Timeout: 5 * time.Second}

func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := statusClient.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type statusDoc struct {
	Phase string `json:"phase"`
	Ready bool   `json:"ready"`
	Load  struct {
		ReadyAt time.Time `json:"ready_at"`
		Seconds float64   `json:"load_time_s"`
	} `json:"load"`
	Restarts int `json:"restarts"`
	PIDs     struct {
		Server int `json:"server"`
	} `json:"pids"`
}

func readStatus(t *testing.T, base string) statusDoc {
	t.Helper()
	code, body := getStatus(t, base+"/status")
	if code != 200 {
		t.Fatalf("/status: %d %s", code, body)
	}
	var d statusDoc
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatalf("/status: %v\n%s", err, body)
	}
	return d
}

func noSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{secretAPIKey, secretHFToken} {
		if strings.Contains(text, s) {
			t.Errorf("%s holds the secret %q", what, s)
		}
	}
}

// TestServeStatusEndpoint runs a serve with --status-addr through its
// load, ready and a hang of the server: /readyz is 503 naming the phase
// while loading, 200 once ready, and 503 again within one liveness
// interval (plus the slack for the probe's own time) of the hang; /livez
// stays 200 all along; /metrics passes the server's sglang:* series
// through; no secret of the profile (an --api-key, an HF_TOKEN) shows in
// /status, /metrics or `sglaunch status`.
func TestServeStatusEndpoint(t *testing.T) {
	t.Parallel()
	const (
		interval  = time.Second
		hangAfter = 3 * time.Second
		// slack: status's livenessSlack, and a loaded machine's delays.
		slack = 2 * time.Second
	)
	e := newEnv(t)
	e.Vars["HF_TOKEN"] = secretHFToken
	simProfile(t, e, "observed", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":     "2",
		"SGLANG_SIM_HANG_AFTER_READY": fmt.Sprint(hangAfter.Seconds()),
		"SGLANG_HEALTH_CHECK_TIMEOUT": "600", // a hung probe never returns
	}, fmt.Sprintf("  api-key: %s\n  enable-metrics: true\nhealth:\n  interval: %s\n  on_unhealthy: log\nstop_timeout: 3s\n", secretAPIKey, interval))
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	base := "http://" + addr
	p := e.Start("serve", "--profile", "observed", "--status-addr", addr, "--status-proxy-metrics")

	// Loading: alive, not ready, the phase named.
	testkit.WaitFor(t, waitTimeout, "/livez 200", func() bool {
		code, _ := getStatus(t, base+"/livez")
		return code == 200
	})
	code, body := getStatus(t, base+"/readyz")
	if code != 503 || !strings.HasPrefix(body, "loading: ") {
		t.Errorf("/readyz during the load: %d %q, want 503 naming the phase", code, body)
	}
	// The runtime state is written once the server runs.
	var out string
	testkit.WaitFor(t, waitTimeout, "sglaunch status finds the launch", func() bool {
		var c int
		out, _, c = e.Run("status", "--profile", "observed")
		return c == 0
	})
	if !strings.Contains(out, "phase         loading: ") {
		t.Errorf("sglaunch status during the load:\n%s", out)
	}

	// Ready.
	testkit.WaitFor(t, waitTimeout, "/readyz 200", func() bool {
		code, _ := getStatus(t, base+"/readyz")
		return code == 200
	})
	doc := readStatus(t, base)
	if doc.Phase != "ready" || doc.Load.ReadyAt.IsZero() || doc.Load.Seconds < 2 || doc.PIDs.Server == 0 {
		t.Errorf("/status once ready: %+v", doc)
	}
	hangAt := doc.Load.ReadyAt.Add(hangAfter)
	_, metrics := getStatus(t, base+"/metrics")
	_, snap := getStatus(t, base+"/status")
	statusText, _, _ := e.Run("status", "--profile", "observed")
	statusJSON, _, _ := e.Run("status", "--json")
	for what, text := range map[string]string{"/metrics": metrics, "/status": snap, "sglaunch status": statusText, "sglaunch status --json": statusJSON} {
		noSecret(t, what, text)
	}
	if !strings.Contains(metrics, `sglaunch_phase{fingerprint="`) || !strings.Contains(statusText, "phase         ready") {
		t.Errorf("metrics or status text lack the phase:\n%s\n%s", metrics, statusText)
	}
	// The server's own series, passed through with the plan's labels.
	if !strings.Contains(metrics, "sglang:num_running_reqs{") || !strings.Contains(metrics, `profile="observed"`) ||
		!strings.Contains(metrics, "sglaunch_sglang_metrics_up{") {
		t.Errorf("/metrics lacks SGLang's series with the profile label:\n%s", metrics)
	}

	// The hang: /readyz turns 503 within one interval; /livez stays 200.
	var turned time.Time
	for deadline := hangAt.Add(interval + slack + 5*time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if code, body := getStatus(t, base+"/livez"); code != 200 {
			t.Fatalf("/livez: %d %q, want 200 while sglaunch supervises", code, body)
		}
		code, body := getStatus(t, base+"/readyz")
		if code == 503 {
			turned = time.Now()
			if !strings.HasPrefix(body, "unhealthy: ") {
				t.Errorf("/readyz after the hang: %q, want unhealthy and why", body)
			}
			break
		}
	}
	switch {
	case turned.IsZero():
		t.Fatalf("/readyz never turned 503 after the server hung\n%s", p.Stderr())
	case turned.Before(hangAt):
		t.Errorf("/readyz turned 503 %v before the hang", hangAt.Sub(turned))
	case turned.After(hangAt.Add(interval + slack)):
		t.Errorf("/readyz turned 503 %v after the hang, want within %v (one interval and the slack)", turned.Sub(hangAt), interval+slack)
	}
	t.Logf("/readyz turned 503 %v after the hang (health.interval %v)", turned.Sub(hangAt).Round(time.Millisecond), interval)

	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	if _, _, c := e.Run("status", "--profile", "observed"); c != 2 {
		t.Errorf("sglaunch status after the serve: exit %d, want 2 (nothing running)", c)
	}
	// The next launch of the profile knows this one ended.
	b, err := os.ReadFile(filepath.Join(e.Vars["SGLAUNCH_STATE_DIR"], "launches", "observed.json"))
	if err != nil || !strings.Contains(string(b), `"last_exit"`) {
		t.Errorf("launch count after the serve: %v\n%s", err, b)
	}
}

// TestStatusFromRuntimeStateAlone: without a status endpoint, `sglaunch
// status` still tells who runs where and whether the server got ready.
func TestStatusFromRuntimeStateAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := simProfile(t, e, "plain", nil, "")
	if _, stderr, c := e.Run("status"); c != 2 || !strings.Contains(stderr, "no sglaunch launch is running") {
		t.Errorf("nothing running: exit %d %q, want 2", c, stderr)
	}
	p := e.Start("serve", "--profile", "plain")
	waitServeHealthy(t, p)
	out, _, c := e.Run("status", "--profile", "plain")
	want := fmt.Sprintf("at http://127.0.0.1:%d", port)
	if c != 0 || !strings.Contains(out, "phase         ready") || !strings.Contains(out, want) || strings.Contains(out, "status    ") {
		t.Errorf("status: exit %d\n%s\nwant ready %s and no status endpoint", c, out, want)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}

// TestStatusFlagsNeedTheirParts: the proxy needs the endpoint and the
// server's --enable-metrics; bench serves status only with --keep-running.
func TestStatusFlagsNeedTheirParts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "p", nil, "")
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--profile", "p", "--status-proxy-metrics"}, "--status-proxy-metrics needs the status endpoint"},
		{[]string{"serve", "--profile", "p", "--status-addr", addr, "--status-proxy-metrics"}, "runs without --enable-metrics"},
		{[]string{"serve", "--profile", "p", "--status-addr", "nowhere"}, "want HOST:PORT, :PORT or PORT"},
		{[]string{"bench", "--profile", "p", "--status-addr", addr}, "only with --keep-running"},
	}
	for _, tt := range tests {
		_, stderr, c := e.Run(append(tt.args, "--skip-preflight")...)
		if c != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, c, stderr, tt.want)
		}
	}
}

// TestBenchKeepRunningStatusEndpoint: bench --keep-running serves the
// same endpoint as serve, for the server it leaves running.
func TestBenchKeepRunningStatusEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	simProfile(t, e, "kept", fastSim, "bench:\n  workloads:\n    - name: q\n      input_len: 8\n      output_len: 4\n      requests: 1\n")
	addr := fmt.Sprintf("127.0.0.1:%d", testkit.FreePort(t))
	p := e.Start("bench", "--profile", "kept", "--keep-running", "--status-addr", addr)
	testkit.WaitFor(t, benchBound, "server kept running", func() bool {
		return strings.Contains(p.Stderr(), "server kept running at") || isDone(p)
	})
	if isDone(p) {
		t.Fatalf("bench exited:\n%s", p.Stderr())
	}
	code, body := getStatus(t, "http://"+addr+"/readyz")
	_, snap := getStatus(t, "http://"+addr+"/status")
	if code != 200 || !strings.Contains(snap, `"mode": "bench"`) {
		t.Errorf("/readyz %d %q; /status:\n%s", code, body, snap)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, benchBound)
}
