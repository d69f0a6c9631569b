package sim

import (
	"bytes"
	"io"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestMetricsAsSGLang: with --enable-metrics the sim serves SGLang's
// sglang:* series (names, types and help as collector.py declares them)
// in the classic text format, and the token counter follows the
// requests; without the flag, /metrics is 404.
func TestMetricsAsSGLang(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--enable-metrics", "--served-model-name", "m")
	p.waitReady()
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids":       []int{1, 2, 3},
		"sampling_params": map[string]any{"max_new_tokens": 5, "ignore_eos": true},
	})
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	code, body := get(t, p.url("/metrics"))
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	want := map[string]dto.MetricType{
		"sglang:num_running_reqs":        dto.MetricType_GAUGE,
		"sglang:gen_throughput":          dto.MetricType_GAUGE,
		"sglang:max_total_num_tokens":    dto.MetricType_GAUGE,
		"sglang:prompt_tokens_total":     dto.MetricType_COUNTER,
		"sglang:generation_tokens_total": dto.MetricType_COUNTER,
		"sglang:num_requests_total":      dto.MetricType_COUNTER,
	}
	for name, typ := range want {
		f, ok := fams[name]
		if !ok || f.GetType() != typ || len(f.Metric) != 1 {
			t.Errorf("%s: got %v, want one %v series", name, f, typ)
			continue
		}
		labels := map[string]string{}
		for _, l := range f.Metric[0].Label {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["model_name"] != "m" {
			t.Errorf("%s: labels %v, want model_name m", name, labels)
		}
	}
	if f := fams["sglang:generation_tokens_total"]; f != nil && f.Metric[0].GetCounter().GetValue() != 5 {
		t.Errorf("generation tokens: got %v, want the request's 5", f.Metric[0].GetCounter().GetValue())
	}

	q := startSim(t, nil)
	q.waitReady()
	if code, _ := get(t, q.url("/metrics")); code != 404 {
		t.Errorf("without --enable-metrics: /metrics %d, want 404", code)
	}
}
