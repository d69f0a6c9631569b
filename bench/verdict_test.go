package bench_test

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/benchtest"
)

func metricOf(c bench.Comparison, name string) bench.MetricDelta {
	for _, m := range c.Metrics {
		if m.Metric == name {
			return m
		}
	}
	return bench.MetricDelta{}
}

// TestCompareVerdicts: a difference inside the rounds' scatter is within
// noise; one beyond it is faster or slower by the metric's direction; the
// gate fails only on a judged slowdown larger than its threshold.
func TestCompareVerdicts(t *testing.T) {
	a := benchtest.RoundsRecord("aaaa", benchtest.RoundsLevel([]float64{1000, 1010, 990, 1005}, []float64{100, 101, 99, 100}))
	noisy := benchtest.RoundsRecord("bbbb", benchtest.RoundsLevel([]float64{995, 1012, 985, 1000}, []float64{100.5, 99, 101.5, 100}))
	c := bench.Compare(a, noisy)
	if m := metricOf(c, "output_throughput"); m.Verdict != "within noise" || m.IntervalPct == nil || m.RoundsA != 4 {
		t.Errorf("noisy throughput: got %+v, want within noise with an interval", m)
	}
	if got := c.Slower(1); len(got) != 0 {
		t.Errorf("gate on noise: got %+v, want nothing", got)
	}

	slow := benchtest.RoundsRecord("cccc", benchtest.RoundsLevel([]float64{900, 905, 895, 902}, []float64{120, 121, 119, 122}))
	c = bench.Compare(a, slow)
	tp, ttft := metricOf(c, "output_throughput"), metricOf(c, "median_ttft_ms")
	if tp.Verdict != "slower" || tp.Confidence < 0.99 || tp.IntervalPct[1] >= 0 {
		t.Errorf("lower throughput: got %+v, want slower with an interval below 0", tp)
	}
	if ttft.Verdict != "slower" || ttft.IntervalPct[0] <= 0 {
		t.Errorf("higher TTFT: got %+v, want slower with an interval above 0", ttft)
	}
	if got := bench.Compare(slow, a); metricOf(got, "output_throughput").Verdict != "faster" {
		t.Errorf("the other way round: got %+v, want faster", metricOf(got, "output_throughput"))
	}
	if got := c.Slower(5); len(got) != 2 {
		t.Errorf("gate at 5%%: got %d metrics, want throughput (-10%%) and TTFT (+20%%)", len(got))
	}
	if got := c.Slower(15); len(got) != 1 || got[0].Metric != "median_ttft_ms" {
		t.Errorf("gate at 15%%: got %+v, want only TTFT", got)
	}
	if msg := bench.SlowerText(c.Slower(15), 15); !strings.Contains(msg, "sweep c=8 median_ttft_ms +20.5% (slower (>99.9%))") {
		t.Errorf("gate message: %s", msg)
	}

}
