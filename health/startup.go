package health

import (
	"bufio"
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// StartupTime is SGLang's own account of its start-up: seconds per phase,
// the critical path over the ranks (srt/observability/startup_time.py),
// as /server_info's "startup_time" or the sglang:startup_time_seconds{phase}
// and sglang:startup_cuda_graph_time_seconds{phase} gauges of /metrics
// (srt/observability/metrics_collector.py emit_startup_time) give it.
// Where present it is the official source of the phases' durations; the
// phases read from the log are the fallback.
type StartupTime struct {
	// From is where it was read: "/server_info" or "/metrics".
	From              string  `json:"from"`
	LoadWeight        float64 `json:"load_weight_s"`
	KVCacheAllocation float64 `json:"kv_cache_allocation_s"`
	// CUDAGraph is the capture time per capture set (prefill, decode,
	// target_verify, draft_prefill, draft_decode, draft_extend); sets not
	// captured are left out.
	CUDAGraph    map[string]float64 `json:"cuda_graph_s,omitempty"`
	SchedulerE2E float64            `json:"scheduler_e2e_s"`
	TokenizerE2E float64            `json:"tokenizer_e2e_s"`
}

// graphOrder is SGLang's order of the capture sets
// (model_executor/graph_memory_usage.py GRAPH_MEMORY_USAGE_KEYS).
var graphOrder = []string{"prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend"}

// ParseStartupTime reads /server_info's startup_time value (decoded
// JSON); false when it is absent or not SGLang's shape.
func ParseStartupTime(v any) (*StartupTime, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	num := func(k string) (float64, bool) {
		f, ok := m[k].(float64)
		return f, ok && f >= 0 && !math.IsInf(f, 0)
	}
	st := &StartupTime{From: "/server_info"}
	var okW, okKV bool
	st.LoadWeight, okW = num("load_weight")
	st.KVCacheAllocation, okKV = num("kv_cache_allocation")
	st.SchedulerE2E, _ = num("scheduler_e2e")
	st.TokenizerE2E, _ = num("tokenizer_e2e")
	if !okW || !okKV {
		return nil, false
	}
	if g, ok := m["cuda_graph"].(map[string]any); ok {
		for k, v := range g {
			if f, ok := v.(float64); ok && f > 0 {
				if st.CUDAGraph == nil {
					st.CUDAGraph = map[string]float64{}
				}
				st.CUDAGraph[k] = f
			}
		}
	}
	return st, true
}

// ParseStartupGauges reads the two start-up gauges from a /metrics body
// (prometheus text format); false when the load_weight gauge is absent.
func ParseStartupGauges(body []byte) (*StartupTime, bool) {
	st := &StartupTime{From: "/metrics"}
	seen := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var graph bool
		switch {
		case strings.HasPrefix(line, "sglang:startup_time_seconds{"):
		case strings.HasPrefix(line, "sglang:startup_cuda_graph_time_seconds{"):
			graph = true
		default:
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			continue
		}
		phase := labelValue(line[:end], "phase")
		f, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil || f < 0 || phase == "" {
			continue
		}
		if graph {
			if f > 0 {
				if st.CUDAGraph == nil {
					st.CUDAGraph = map[string]float64{}
				}
				st.CUDAGraph[phase] = f
			}
			continue
		}
		switch phase {
		case "load_weight":
			st.LoadWeight, seen = f, true
		case "kv_cache_allocation":
			st.KVCacheAllocation = f
		case "scheduler_e2e":
			st.SchedulerE2E = f
		case "tokenizer_e2e":
			st.TokenizerE2E = f
		}
	}
	return st, seen
}

// labelValue is the value of label name in a sample's label set.
func labelValue(labels, name string) string {
	i := strings.Index(labels, name+`="`)
	if i < 0 || (i > 0 && labels[i-1] != '{' && labels[i-1] != ',') {
		return ""
	}
	rest := labels[i+len(name)+2:]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// Span is one start-up phase's duration.
type Span struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Spans are the official durations in SGLang's order: the weights, the
// KV cache, each capture set.
func (st *StartupTime) Spans() []Span {
	out := []Span{{"weights", st.LoadWeight}, {"KV cache", st.KVCacheAllocation}}
	for _, k := range graphOrder {
		if v := st.CUDAGraph[k]; v > 0 {
			out = append(out, Span{"CUDA graphs " + strings.ReplaceAll(k, "_", " "), v})
		}
	}
	var extra []string
	for k := range st.CUDAGraph {
		if !contains(graphOrder, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		out = append(out, Span{"CUDA graphs " + strings.ReplaceAll(k, "_", " "), st.CUDAGraph[k]})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LogSpans are the phases' durations as the log shows them, the
// fallback when the server gives no startup_time: weights (begin to the
// last rank's end), KV cache (weights loaded to allocated) and CUDA
// graphs (first capture to the last end). Spans whose marks are missing,
// or out of order (under --startup-weight-load-mode overlap the weights'
// end comes after the captures), are left out rather than guessed.
func LogSpans(phases []Phase) []Span {
	at := map[string]time.Duration{}
	for _, p := range phases {
		at[p.Name] = p.At
	}
	var out []Span
	add := func(name, from, to string) {
		a, okA := at[from]
		b, okB := at[to]
		if okA && okB && b >= a {
			out = append(out, Span{name, (b - a).Seconds()})
		}
	}
	add("weights", PhaseLoadingWeights, PhaseWeightsLoaded)
	if w, ok := at[PhaseWeightsLoaded]; ok {
		if k, ok := at[PhaseKVCache]; ok && k >= w {
			out = append(out, Span{"KV cache", (k - w).Seconds()})
		}
	}
	add("CUDA graphs", PhaseCapturingGraphs, PhaseGraphsCaptured)
	return out
}

// Breakdown is the load's phase durations: SGLang's own (Official) when
// the server gave them, else as read from the log; with where from.
func (l Load) Breakdown() ([]Span, string) {
	if l.Official != nil {
		return l.Official.Spans(), "SGLang's startup_time (" + l.Official.From + ")"
	}
	if s := LogSpans(l.Phases); len(s) > 0 {
		return s, "the server's log"
	}
	return nil, ""
}
