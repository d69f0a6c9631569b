package status

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func newHTTPServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// sglangMetrics is what SGLang's prometheus_client serves under
// --enable-metrics (names and label sets from
// python/sglang/srt/observability/metrics_collector.py: a scheduler gauge
// per logging rank, token counters by is_streaming), with the Python
// runtime's own series beside them.
const sglangMetrics = `# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 1234.0
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m",engine_type="unified",tp_rank="0",pp_rank="0",moe_ep_rank="0",profile="spoofed"} 3.0
# HELP sglang:generation_tokens_total Number of generation tokens processed.
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="m",engine_type="unified",is_streaming="true"} 512.0
# HELP sglang:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE sglang:time_to_first_token_seconds histogram
sglang:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 1.0
sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 2.0
sglang:time_to_first_token_seconds_sum{model_name="m"} 0.35
sglang:time_to_first_token_seconds_count{model_name="m"} 2.0
`

func TestProxyPassesSGLangSeriesWithLabels(t *testing.T) {
	tool := testkit.NeedTool(t, "promtool", "prometheus")
	down := false
	backend := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down || r.URL.Path != "/metrics" {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(sglangMetrics))
	}))
	s := NewState(testInfo())
	srv := listen(t, s, Options{ProxyURL: backend})
	_, text := get(t, srv.URL()+"/metrics")
	fams := parse(t, text)
	if _, ok := fams["python_gc_objects_collected_total"]; ok {
		t.Error("a non-sglang series was passed through")
	}
	for _, name := range []string{"sglang:num_running_reqs", "sglang:generation_tokens_total", "sglang:time_to_first_token_seconds"} {
		f, ok := fams[name]
		if !ok {
			t.Errorf("%s not passed through:\n%s", name, text)
			continue
		}
		for _, m := range f.Metric {
			l := labels(m)
			if l["profile"] != "demo" || l["fingerprint"] != fingerprint[:12] || l["model_name"] != "m" {
				t.Errorf("%s%v: want SGLang's labels and profile demo, fingerprint %s", name, l, fingerprint[:12])
			}
		}
	}
	if v, _ := value(fams, "sglang:num_running_reqs", nil); v != 3 {
		t.Errorf("sglang:num_running_reqs = %v, want 3", v)
	}
	if v, ok := value(fams, "sglaunch_sglang_metrics_up", nil); !ok || v != 1 {
		t.Errorf("sglaunch_sglang_metrics_up = %v (%v), want 1", v, ok)
	}
	// promtool's only complaint is the colon SGLang's names keep.
	for _, line := range strings.Split(promtool(t, tool, text), "\n") {
		if line != "" && !strings.HasPrefix(line, "(exit status") && !(strings.HasPrefix(line, "sglang:") && strings.HasSuffix(line, "metric names should not contain ':'")) {
			t.Errorf("promtool: %s", line)
		}
	}

	down = true
	time.Sleep(proxyCacheFor) // the last read serves scrapes until then
	code, text := get(t, srv.URL()+"/metrics")
	fams = parse(t, text)
	if v, ok := value(fams, "sglaunch_sglang_metrics_up", nil); code != 200 || !ok || v != 0 {
		t.Errorf("server down: /metrics %d, sglaunch_sglang_metrics_up = %v (%v); want 200 and 0", code, v, ok)
	}
	if _, ok := fams["sglaunch_phase"]; !ok {
		t.Error("server down: sglaunch's own metrics are gone")
	}
}
