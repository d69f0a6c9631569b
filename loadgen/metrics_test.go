package loadgen

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"
)

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// TestCompute checks the metric math against values worked out by hand
// (and with numpy for the percentiles).
func TestCompute(t *testing.T) {
	samples := []Sample{
		{OK: true, InputTokens: 10, OutputTokens: 4, TTFT: msd(100), Latency: msd(130), ITL: []time.Duration{msd(10), msd(10), msd(10)}},
		{OK: true, InputTokens: 20, OutputTokens: 2, TTFT: msd(200), Latency: msd(220), ITL: []time.Duration{msd(20)}},
		{OK: false, Err: "boom"},
	}
	m := Compute(samples, time.Second, true)
	want := map[string]float64{
		"completed": 2, "failed": 1, "duration": 1,
		"total_input_tokens": 30, "total_output_tokens": 6,
		"request_throughput": 2, "input_throughput": 30, "output_throughput": 6, "total_throughput": 36,
		"concurrency":  0.35,
		"mean_ttft_ms": 150, "median_ttft_ms": 150, "std_ttft_ms": 50, "p90_ttft_ms": 190, "p95_ttft_ms": 195, "p99_ttft_ms": 199,
		"mean_tpot_ms": 15, "median_tpot_ms": 15, "std_tpot_ms": 5, "p90_tpot_ms": 19, "p99_tpot_ms": 19.9,
		"mean_itl_ms": 12.5, "median_itl_ms": 10, "std_itl_ms": math.Sqrt(18.75), "p90_itl_ms": 17, "p95_itl_ms": 18.5, "p99_itl_ms": 19.7, "max_itl_ms": 20,
		"mean_e2e_latency_ms": 175, "median_e2e_latency_ms": 175, "std_e2e_latency_ms": 45, "p90_e2e_latency_ms": 211, "p99_e2e_latency_ms": 219.1,
		"decode_tok_s": 80, // 4 tokens after the first in 50 ms
	}
	for name, w := range want {
		got, ok := m.Get(name)
		if !ok {
			t.Errorf("metric %s missing", name)
			continue
		}
		if math.Abs(got-w) > 1e-6 {
			t.Errorf("%s: got %v, want %v", name, got, w)
		}
	}
}

// TestComputeChunkGaps: the chunk gaps are summarised apart from the ITLs
// unless every chunk of every stream carried one token.
func TestComputeChunkGaps(t *testing.T) {
	ten, twenty := msd(10), msd(20)
	one := Sample{OK: true, OutputTokens: 3, TTFT: ten, Latency: msd(40), ITL: []time.Duration{ten, twenty}, ChunkGaps: []time.Duration{ten, twenty}}
	two := Sample{OK: true, OutputTokens: 3, TTFT: ten, Latency: msd(30), ITL: []time.Duration{ten, ten}, ChunkGaps: []time.Duration{twenty}}
	for _, c := range []struct {
		name          string
		samples       []Sample
		itl, chunkGap Dist
	}{
		{"one token a chunk", []Sample{one}, Dist{Mean: 15, Median: 15, Std: 5, P90: 19, P95: 19.5, P99: 19.9, Max: 20}, Dist{Mean: 15, Median: 15, Std: 5, P90: 19, P95: 19.5, P99: 19.9, Max: 20}},
		{"a chunk of two", []Sample{one, two}, Dist{Mean: 12.5, Median: 10, Std: math.Sqrt(18.75), P90: 17, P95: 18.5, P99: 19.7, Max: 20}, Dist{Mean: 50.0 / 3, Median: 20, Std: math.Sqrt(200.0 / 9), P90: 20, P95: 20, P99: 20, Max: 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := Compute(c.samples, time.Second, false)
			for _, d := range []struct {
				what      string
				got, want Dist
			}{{"itl", m.ITL, c.itl}, {"chunk gap", m.ChunkGap, c.chunkGap}} {
				g, w := []float64{d.got.Mean, d.got.Median, d.got.Std, d.got.P90, d.got.P95, d.got.P99, d.got.Max}, []float64{d.want.Mean, d.want.Median, d.want.Std, d.want.P90, d.want.P95, d.want.P99, d.want.Max}
				if !slices.EqualFunc(g, w, func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }) {
					t.Errorf("%s: got %+v, want %+v", d.what, d.got, d.want)
				}
			}
		})
	}
}

func TestComputeEmpty(t *testing.T) {
	m := Compute([]Sample{{Err: "x"}}, 0, true)
	if m.Completed != 0 || m.Failed != 1 || m.TTFT.Median != 0 || m.RequestThroughput != 0 || m.DecodeRate != 0 {
		t.Errorf("got %+v, want zeros with one failure", m)
	}
}

func TestPercentileMatchesNumpy(t *testing.T) {
	// np.percentile(v, p) with numpy's default linear method.
	v := []float64{1, 2, 3, 4, 10}
	for _, tt := range []struct{ p, want float64 }{{0, 1}, {50, 3}, {90, 7.6}, {95, 8.8}, {99, 9.76}, {100, 10}} {
		if got := Percentile(v, tt.p); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Percentile(%v, %v): got %v, want %v", v, tt.p, got, tt.want)
		}
	}
	if got := Percentile([]float64{1, 2, 3, 4}, 50); got != 2.5 {
		t.Errorf("median of 1..4: got %v, want 2.5", got)
	}
}

func TestMetricsJSONNames(t *testing.T) {
	m := Compute([]Sample{{OK: true, InputTokens: 1, OutputTokens: 3, TTFT: msd(5), Latency: msd(9), ITL: []time.Duration{msd(2), msd(2)}}}, time.Second, false)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]float64
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("metrics JSON %s: %v", b, err)
	}
	// The names bench_serving writes to its JSONL.
	for _, name := range []string{"completed", "duration", "request_throughput", "input_throughput", "output_throughput", "total_throughput",
		"mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p90_ttft_ms", "p95_ttft_ms", "p99_ttft_ms",
		"mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms", "mean_itl_ms", "median_itl_ms", "p95_itl_ms", "p99_itl_ms", "max_itl_ms",
		"mean_e2e_latency_ms", "median_e2e_latency_ms", "p99_e2e_latency_ms", "concurrency"} {
		if _, ok := raw[name]; !ok {
			t.Errorf("JSON lacks %s: %s", name, b)
		}
	}
	if _, ok := raw["decode_tok_s"]; ok {
		t.Errorf("decode_tok_s written for a level that is not single-stream: %s", b)
	}
	var back Metrics
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != m {
		t.Errorf("round trip: got %+v, want %+v", back, m)
	}
	if !slices.Equal(MetricNames()[:3], []string{"completed", "failed", "duration"}) {
		t.Errorf("MetricNames starts %v", MetricNames()[:3])
	}
}

func TestArrivalsArePoissonAndSeeded(t *testing.T) {
	const n, rate = 20000, 8.0
	a, b := newArrivals(7, rate), newArrivals(7, rate)
	var sum time.Duration
	for range n {
		g := a.next()
		if g != b.next() {
			t.Fatal("the same seed gave different arrivals")
		}
		sum += g
	}
	mean := sum.Seconds() / n
	if math.Abs(mean-1/rate)/(1/rate) > 0.05 {
		t.Errorf("mean gap %.4fs, want %.4fs within 5%%", mean, 1/rate)
	}
	if newArrivals(8, rate).next() == newArrivals(7, rate).next() {
		t.Error("different seeds gave the same first gap")
	}
}
