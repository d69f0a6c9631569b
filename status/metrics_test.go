package status

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// allowedLabels are every label name a sglaunch_* series may carry:
// profile and fingerprint everywhere, and fixed enumerations.
var allowedLabels = []string{"profile", "fingerprint", "phase", "probe", "result", "mode", "sglang_version", "interpreter", "le", "reason"}

func listen(t *testing.T, s *State, opts Options) *Server {
	t.Helper()
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	srv, err := Listen(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close(context.Background()) })
	return srv
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// promtool runs `promtool check metrics` on text and returns its
// problems, one per line ("" when it passed).
func promtool(t *testing.T, path, text string) string {
	t.Helper()
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("promtool: %v", err)
	}
	if err == nil {
		return ""
	}
	return strings.TrimSpace(out.String()) + "\n(" + err.Error() + ")"
}

func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, text)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// value returns the value of the series of name whose labels include want.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	for _, m := range f.Metric {
		got := labels(m)
		match := true
		for k, v := range want {
			match = match && got[k] == v
		}
		if !match {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsPassPromtoolInEveryPhase scrapes /metrics at each step of a
// launch: promtool finds no problem, every series has exactly the
// labels profile and fingerprint plus fixed enumerations, and the phase
// gauge names the phase.
func TestMetricsPassPromtoolInEveryPhase(t *testing.T) {
	tool := testkit.NeedTool(t, "promtool", "prometheus")
	c := useClock(t)
	s := NewState(testInfo())
	srv := listen(t, s, Options{})
	for _, st := range lifecycle() {
		st.do(s, c)
		code, text := get(t, srv.URL()+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("%s: /metrics answered %d", st.name, code)
		}
		if problems := promtool(t, tool, text); problems != "" {
			t.Errorf("%s: promtool check metrics:\n%s\n%s", st.name, problems, text)
		}
		fams := parse(t, text)
		for name, f := range fams {
			if !strings.HasPrefix(name, "sglaunch_") {
				t.Errorf("%s: series %s is not sglaunch's", st.name, name)
			}
			for _, m := range f.Metric {
				l := labels(m)
				if l["profile"] != "demo" || l["fingerprint"] != fingerprint[:12] {
					t.Errorf("%s: %s%v: want profile demo and fingerprint %s", st.name, name, l, fingerprint[:12])
				}
				for k := range l {
					if !slices.Contains(allowedLabels, k) {
						t.Errorf("%s: %s has label %q, outside the bounded set", st.name, name, k)
					}
				}
			}
		}
		if v, ok := value(fams, "sglaunch_phase", map[string]string{"phase": phaseLabel(st.phase)}); !ok || v != 1 {
			t.Errorf("%s: sglaunch_phase{phase=%q} = %v (%v), want 1", st.name, phaseLabel(st.phase), v, ok)
		}
		if v, _ := value(fams, "sglaunch_ready", nil); v != b2f(st.ready) {
			t.Errorf("%s: sglaunch_ready = %v, want %v", st.name, v, b2f(st.ready))
		}
		if len(fams["sglaunch_phase"].Metric) != len(PhaseLabels) {
			t.Errorf("%s: %d phase series, want the %d fixed ones", st.name, len(fams["sglaunch_phase"].Metric), len(PhaseLabels))
		}
	}
	// After the launch: the load and its phases, the probes, the exit.
	_, text := get(t, srv.URL()+"/metrics")
	fams := parse(t, text)
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"sglaunch_load_duration_seconds", nil, 4},
		{"sglaunch_health_probes_total", map[string]string{"probe": "readiness", "result": "refused"}, 1},
		{"sglaunch_health_probes_total", map[string]string{"probe": "readiness", "result": "unavailable"}, 1},
		{"sglaunch_health_probes_total", map[string]string{"probe": "liveness", "result": "ok"}, 2},
		{"sglaunch_health_probe_duration_seconds", map[string]string{"probe": "liveness"}, 3},
		{"sglaunch_liveness_failures_total", nil, 1},
		{"sglaunch_last_exit_status", nil, 137},
		{"sglaunch_server_up", nil, 0},
		{"sglaunch_plan_info", map[string]string{"sglang_version": "0.5.10+sim", "interpreter": "/usr/bin/python3", "mode": "serve"}, 1},
	} {
		if got, ok := value(fams, tt.name, tt.labels); !ok || got != tt.want {
			t.Errorf("%s%v: got %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	for _, phase := range []string{"loading_weights", "weights_loaded", "port_bound", "warm_up_done"} {
		if _, ok := value(fams, "sglaunch_load_phase_duration_seconds", map[string]string{"phase": phase}); !ok {
			t.Errorf("no sglaunch_load_phase_duration_seconds{phase=%q}", phase)
		}
	}
}

func TestEndpoints(t *testing.T) {
	c := useClock(t)
	s := NewState(testInfo())
	srv := listen(t, s, Options{})
	steps := lifecycle()
	want := map[string][2]int{ // livez, readyz
		"launched": {200, 503}, "loading weights": {200, 503}, "ready": {200, 200},
		"liveness fails": {200, 503}, "stopping": {200, 503}, "exited": {503, 503},
	}
	for _, st := range steps {
		st.do(s, c)
		w, ok := want[st.name]
		if !ok {
			continue
		}
		live, _ := get(t, srv.URL()+"/livez")
		ready, body := get(t, srv.URL()+"/readyz")
		if live != w[0] || ready != w[1] {
			t.Errorf("%s: /livez %d /readyz %d (%q), want %d %d", st.name, live, ready, body, w[0], w[1])
		}
		if ready == 503 && !strings.Contains(body, st.phase) {
			t.Errorf("%s: /readyz body %q does not name the phase %q", st.name, body, st.phase)
		}
		snap, err := Fetch(context.Background(), srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		if snap.Phase != st.phase || snap.StatusURL != srv.URL() || snap.PIDs.Sglaunch != 100 {
			t.Errorf("%s: /status phase %q url %q pids %+v", st.name, snap.Phase, snap.StatusURL, snap.PIDs)
		}
	}
}

// TestStatusAddsNoServerCall: /livez, /readyz and /status answer from
// the state alone, also when the server hangs: a server that never
// answers delays none of them.
func TestStatusAddsNoServerCall(t *testing.T) {
	hung := make(chan struct{})
	defer close(hung)
	calls := 0
	backend := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		<-hung
	}))
	info := testInfo()
	info.URL = backend
	s := NewState(info)
	srv := listen(t, s, Options{})
	start := time.Now()
	for _, path := range []string{"/livez", "/readyz", "/status", "/metrics"} {
		get(t, srv.URL()+path)
	}
	if took := time.Since(start); took > 5*time.Second || calls != 0 {
		t.Errorf("took %v with %d calls to the server; want none", took, calls)
	}
}
