package sim

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/sglaunch/sglaunch/catalog/sglangtab"
)

// scrape reads the sim's /metrics into metric families.
func scrape(t *testing.T, p *simProc) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := get(t, p.url("/metrics"))
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

func labelsOf(m *dto.Metric) map[string]string {
	labels := map[string]string{}
	for _, l := range m.Label {
		labels[l.GetName()] = l.GetValue()
	}
	return labels
}

func generate(t *testing.T, p *simProc, stream bool, tokens int) {
	t.Helper()
	resp := postJSON(t, p.url("/generate"), map[string]any{
		"input_ids":       []int{1, 2, 3},
		"stream":          stream,
		"sampling_params": map[string]any{"max_new_tokens": tokens, "ignore_eos": true},
	})
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// TestMetricsAsSGLang: with --enable-metrics the sim serves SGLang's
// sglang:* series (names, types and help as
// srt/observability/metrics_collector.py declares them) in the classic
// text format, and the token counter follows the requests; without the
// flag, /metrics is 404.
func TestMetricsAsSGLang(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--enable-metrics", "--served-model-name", "m")
	p.waitReady()
	generate(t, p, false, 5)

	fams := scrape(t, p)
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
		if labels := labelsOf(f.Metric[0]); labels["model_name"] != "m" {
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

// TestMetricsLabelSetsAsSGLang pins issue 20's eighth defect: the sim's
// series carried model_name and engine_type only. SGLang's scheduler
// gauges carry tp_rank, pp_rank and moe_ep_rank too (one series per
// scheduler that logs: attention-TP rank 0, or every one under
// --enable-metrics-for-all-schedulers), and its token and request
// counters is_streaming, one series per value seen.
func TestMetricsLabelSetsAsSGLang(t *testing.T) {
	t.Parallel()
	p := startSim(t, nil, "--enable-metrics", "--served-model-name", "m", "--tp-size", "2", "--ep-size", "2")
	p.waitReady()
	generate(t, p, false, 5)
	generate(t, p, true, 3)
	fams := scrape(t, p)

	gauge := map[string]string{"model_name": "m", "engine_type": "unified", "tp_rank": "0", "pp_rank": "0", "moe_ep_rank": "0"}
	for _, name := range []string{"sglang:num_running_reqs", "sglang:gen_throughput", "sglang:max_total_num_tokens"} {
		f := fams[name]
		if f == nil || len(f.Metric) != 1 || !maps.Equal(labelsOf(f.Metric[0]), gauge) {
			t.Errorf("%s: got %v, want one series labelled %v (tp rank 1 does not log)", name, f, gauge)
		}
	}
	counted := map[string]map[string]float64{
		"sglang:prompt_tokens_total":     {"false": 3, "true": 3},
		"sglang:generation_tokens_total": {"false": 5, "true": 3},
		"sglang:num_requests_total":      {"false": 1, "true": 1},
	}
	for name, want := range counted {
		got := map[string]float64{}
		for _, m := range fams[name].GetMetric() {
			l := labelsOf(m)
			if len(l) != 3 || l["model_name"] != "m" || l["engine_type"] != "unified" {
				t.Errorf("%s: labels %v, want model_name, engine_type and is_streaming", name, l)
			}
			got[l["is_streaming"]] = m.GetCounter().GetValue()
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s by is_streaming: got %v, want %v", name, got, want)
		}
	}

	checkAgainstTables(t, fams)

	// Every scheduler logs under --enable-metrics-for-all-schedulers; with
	// ep 2 of tp 2 each rank is its own expert-parallel rank.
	q := startSim(t, nil, "--enable-metrics", "--tp-size", "2", "--ep-size", "2", "--enable-metrics-for-all-schedulers")
	q.waitReady()
	var ranks []string
	for _, m := range scrape(t, q)["sglang:num_running_reqs"].GetMetric() {
		l := labelsOf(m)
		ranks = append(ranks, l["tp_rank"]+"/"+l["moe_ep_rank"])
		if l["model_name"] != testModel {
			t.Errorf("model_name %q, want the model path %s (served_model_name's default)", l["model_name"], testModel)
		}
	}
	if want := []string{"0/0", "1/1"}; !slices.Equal(ranks, want) {
		t.Errorf("tp_rank/moe_ep_rank of the series: got %s, want %s", strings.Join(ranks, " "), strings.Join(want, " "))
	}
}

// checkAgainstTables holds the sim's series to the metrics table
// generated from SGLang's source for the version the sim reports: each
// is a metric SGLang defines, of its kind, with is_streaming exactly
// where SGLang's label list adds it.
func checkAgainstTables(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	c, err := sglangtab.For(Version)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]dto.MetricType{"Gauge": dto.MetricType_GAUGE, "Counter": dto.MetricType_COUNTER, "Histogram": dto.MetricType_HISTOGRAM}
	for name, f := range fams {
		var row *sglangtab.Metric
		for i := range c.Metrics {
			if c.Metrics[i].Name == name {
				row = &c.Metrics[i]
			}
		}
		if row == nil {
			t.Errorf("%s: not a metric of SGLang %s's tables", name, c.Meta.Version)
			continue
		}
		if kinds[row.Kind] != f.GetType() {
			t.Errorf("%s: a %v, SGLang's is a %s (%s)", name, f.GetType(), row.Kind, row.Source)
		}
		streaming := strings.Contains(strings.Join(row.Labels, " "), "is_streaming")
		for _, m := range f.Metric {
			if _, has := labelsOf(m)["is_streaming"]; has != streaming {
				t.Errorf("%s: is_streaming label %v, SGLang's labels %q (%s)", name, has, row.Labels, row.Source)
			}
		}
	}
}
