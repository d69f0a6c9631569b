package health

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestPhasesFromStartupTime: SGLang's own startup_time, from /server_info
// or the /metrics gauges, gives the phases' durations (issue 20, item 8);
// the log's phases are the fallback.
func TestPhasesFromStartupTime(t *testing.T) {
	var info map[string]any
	raw := `{"startup_time":{"load_weight":12.5,"kv_cache_allocation":0.75,"scheduler_e2e":40.1,
		"cuda_graph":{"prefill":3.0,"decode":0.0,"target_verify":6.5,"draft_prefill":0.0,"draft_decode":1.25,"draft_extend":0.5},
		"tokenizer_e2e":41.0}}`
	if err := json.Unmarshal([]byte(raw), &info); err != nil {
		t.Fatal(err)
	}
	st, ok := ParseStartupTime(info["startup_time"])
	if !ok {
		t.Fatal("startup_time not read")
	}
	want := []Span{{"weights", 12.5}, {"KV cache", 0.75}, {"CUDA graphs prefill", 3}, {"CUDA graphs target verify", 6.5},
		{"CUDA graphs draft decode", 1.25}, {"CUDA graphs draft extend", 0.5}}
	if got := st.Spans(); !reflect.DeepEqual(got, want) {
		t.Errorf("spans: got %v, want %v", got, want)
	}
	if st.SchedulerE2E != 40.1 || st.TokenizerE2E != 41 || st.From != "/server_info" {
		t.Errorf("got %+v", st)
	}
	for _, bad := range []any{nil, "x", map[string]any{"scheduler_e2e": 1.0}} {
		if _, ok := ParseStartupTime(bad); ok {
			t.Errorf("%v read as a startup_time", bad)
		}
	}

	metrics := []byte(`# HELP sglang:startup_time_seconds Engine startup duration by phase in seconds.
# TYPE sglang:startup_time_seconds gauge
sglang:startup_time_seconds{model_name="m",engine_type="unified",phase="load_weight"} 12.5
sglang:startup_time_seconds{model_name="m",engine_type="unified",phase="kv_cache_allocation"} 0.75
sglang:startup_time_seconds{model_name="m",engine_type="unified",phase="scheduler_e2e"} 40.1
sglang:startup_time_seconds{model_name="m",engine_type="unified",phase="tokenizer_e2e"} 41.0
sglang:startup_cuda_graph_time_seconds{model_name="m",engine_type="unified",phase="prefill"} 3.0
sglang:startup_cuda_graph_time_seconds{model_name="m",engine_type="unified",phase="decode"} 0.0
sglang:startup_cuda_graph_time_seconds{model_name="m",engine_type="unified",phase="target_verify"} 6.5
sglang:startup_cuda_graph_time_seconds{model_name="m",engine_type="unified",phase="draft_decode"} 1.25
sglang:startup_cuda_graph_time_seconds{model_name="m",engine_type="unified",phase="draft_extend"} 0.5
sglang:num_running_reqs{model_name="m",engine_type="unified"} 0.0
`)
	g, ok := ParseStartupGauges(metrics)
	if !ok || g.From != "/metrics" || !reflect.DeepEqual(g.Spans(), want) || g.TokenizerE2E != 41 {
		t.Errorf("gauges: %+v (%v)", g, ok)
	}
	if _, ok := ParseStartupGauges([]byte("sglang:num_running_reqs 1\n")); ok {
		t.Error("a /metrics without the gauges read as a startup_time")
	}

	// Official first; the log's phases the fallback.
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	logPhases := []Phase{{PhaseLoadingWeights, sec(1)}, {PhaseWeightsLoaded, sec(11)}, {PhaseKVCache, sec(12)},
		{PhaseCapturingGraphs, sec(12.5)}, {PhaseGraphsCaptured, sec(20)}}
	if spans, from := (Load{Phases: logPhases, Official: st}).Breakdown(); from != "SGLang's startup_time (/server_info)" || !reflect.DeepEqual(spans, want) {
		t.Errorf("with startup_time: %v from %q", spans, from)
	}
	if spans, from := (Load{Phases: logPhases}).Breakdown(); from != "the server's log" ||
		!reflect.DeepEqual(spans, []Span{{"weights", 10}, {"KV cache", 1}, {"CUDA graphs", 7.5}}) {
		t.Errorf("from the log: %v from %q", spans, from)
	}
}

// TestPhasesInTimeOrderUnderOverlap: under --startup-weight-load-mode
// overlap (PR #32017) the weights load while the graphs are captured and
// the only "Load weight end" comes after the captures; the phases are
// listed as they happened, and the log's spans do not invent a KV cache
// time from the weights' late end.
func TestPhasesInTimeOrderUnderOverlap(t *testing.T) {
	start := time.Unix(1000, 0)
	now := start
	old := timeNow
	timeNow = func() time.Time { return now }
	t.Cleanup(func() { timeNow = old })
	tr := NewTracker(start)
	for _, l := range []struct {
		at   float64
		line string
	}{
		{1, "[TP0] Load weight begin. avail mem=78.68 GB\n"},
		{2, "[TP0] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 470000, K size: 7.70 GB, V size: 7.70 GB\n"},
		{3, "[TP0] Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, bs=[1, 2], avail mem=47.95 GB\n"},
		{6, "[TP0] Capture target decode CUDA graph end. elapsed=3.00 s, mem usage=0.62 GB, avail mem=47.33 GB.\n"},
		{8, "[TP0] Load weight end. elapsed=7.00 s, type=LlamaForCausalLM, avail mem=40.00 GB, mem usage=15.02 GB.\n"},
		// Another rank's KV line after the captures: the step ends at its last rank.
		{9, "[TP1] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 470000, K size: 7.70 GB, V size: 7.70 GB\n"},
	} {
		now = start.Add(time.Duration(l.at * float64(time.Second)))
		tr.Observe([]byte(l.line))
	}
	var names []string
	last := time.Duration(-1)
	for _, p := range tr.Phases() {
		if p.At < last {
			t.Errorf("phases out of time order: %v", tr.Phases())
		}
		last = p.At
		names = append(names, p.Name)
	}
	want := []string{PhaseLoadingWeights, PhaseCapturingGraphs, PhaseGraphsCaptured, PhaseWeightsLoaded, PhaseKVCache}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	spans := LogSpans(tr.Phases())
	if !reflect.DeepEqual(spans, []Span{{"weights", 7}, {"KV cache", 1}, {"CUDA graphs", 3}}) {
		t.Errorf("log spans: %v", spans)
	}
}
