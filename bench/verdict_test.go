package bench

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/loadgen"
)

// TestStudentT checks the t distribution against tabulated values.
func TestStudentT(t *testing.T) {
	for _, tt := range []struct{ p, df, want float64 }{
		{0.975, 1, 12.7062}, {0.975, 3, 3.18245}, {0.975, 10, 2.22814}, {0.975, 30, 2.04227}, {0.975, 1e6, 1.95996},
	} {
		if got := studentQuantile(tt.p, tt.df); math.Abs(got-tt.want) > 1e-3 {
			t.Errorf("t(%v, df %v): got %.5f, want %.5f", tt.p, tt.df, got, tt.want)
		}
	}
	if got := studentCDF(2.228139, 10); math.Abs(got-0.975) > 1e-6 {
		t.Errorf("CDF(2.228, 10): got %v, want 0.975", got)
	}
}

// TestWelch against Welch's t-test worked out by hand (numerical
// integration of the t density for p): a = [10, 11, 12, 13],
// b = [12, 13, 14, 15, 16]: se = 0.95743, t = 2.6112, df = 6.9808,
// p = 0.034939, t(0.975, 6.98) = 2.3654.
func TestWelch(t *testing.T) {
	diff, lo, hi, conf, ok := welch([]float64{10, 11, 12, 13}, []float64{12, 13, 14, 15, 16})
	if !ok || math.Abs(diff-2.5) > 1e-9 || math.Abs(conf-(1-0.034939)) > 1e-4 {
		t.Errorf("got diff %v conf %v, want 2.5 and %.6f", diff, conf, 1-0.034939)
	}
	if math.Abs(lo-(2.5-2.3654*0.95743)) > 2e-3 || math.Abs(hi-(2.5+2.3654*0.95743)) > 2e-3 {
		t.Errorf("interval [%v, %v], want [0.235, 4.765]", lo, hi)
	}
	if _, _, _, _, ok := welch([]float64{1}, []float64{1, 2}); ok {
		t.Error("one value on a side gave an interval")
	}
}

// roundsLevel is a c=8 level of the given per-round output throughputs
// and median TTFTs.
func roundsLevel(tput, ttft []float64) LevelRecord {
	l := LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 8}}}
	var sumT, sumF float64
	for i := range tput {
		l.Rounds = append(l.Rounds, RoundRecord{Metrics: loadgen.Metrics{Completed: 8, OutputThroughput: tput[i], TTFT: loadgen.Dist{Median: ttft[i]}}})
		sumT, sumF = sumT+tput[i], sumF+ttft[i]
	}
	l.Metrics = loadgen.Metrics{Completed: 8 * len(tput), OutputThroughput: sumT / float64(len(tput)), TTFT: loadgen.Dist{Median: sumF / float64(len(tput))}}
	return l
}

func roundsRecord(id string, l LevelRecord) *Record {
	r := NewRecord(time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC))
	r.ID = id
	r.Results = []WorkloadResult{{Workload: Workload{Name: "sweep", Rounds: len(l.Rounds)}, Status: StatusOK, Levels: []LevelRecord{l}}}
	return r
}

func metricOf(c Comparison, name string) MetricDelta {
	for _, m := range c.Metrics {
		if m.Metric == name {
			return m
		}
	}
	return MetricDelta{}
}

// TestCompareVerdicts: a difference inside the rounds' scatter is within
// noise; one beyond it is faster or slower by the metric's direction; the
// gate fails only on a judged slowdown larger than its threshold.
func TestCompareVerdicts(t *testing.T) {
	a := roundsRecord("aaaa", roundsLevel([]float64{1000, 1010, 990, 1005}, []float64{100, 101, 99, 100}))
	noisy := roundsRecord("bbbb", roundsLevel([]float64{995, 1012, 985, 1000}, []float64{100.5, 99, 101.5, 100}))
	c := Compare(a, noisy)
	if m := metricOf(c, "output_throughput"); m.Verdict != "within noise" || m.IntervalPct == nil || m.RoundsA != 4 {
		t.Errorf("noisy throughput: got %+v, want within noise with an interval", m)
	}
	if got := c.Slower(1); len(got) != 0 {
		t.Errorf("gate on noise: got %+v, want nothing", got)
	}

	slow := roundsRecord("cccc", roundsLevel([]float64{900, 905, 895, 902}, []float64{120, 121, 119, 122}))
	c = Compare(a, slow)
	tp, ttft := metricOf(c, "output_throughput"), metricOf(c, "median_ttft_ms")
	if tp.Verdict != "slower" || tp.Confidence < 0.99 || tp.IntervalPct[1] >= 0 {
		t.Errorf("lower throughput: got %+v, want slower with an interval below 0", tp)
	}
	if ttft.Verdict != "slower" || ttft.IntervalPct[0] <= 0 {
		t.Errorf("higher TTFT: got %+v, want slower with an interval above 0", ttft)
	}
	if got := Compare(slow, a); metricOf(got, "output_throughput").Verdict != "faster" {
		t.Errorf("the other way round: got %+v, want faster", metricOf(got, "output_throughput"))
	}
	if got := c.Slower(5); len(got) != 2 {
		t.Errorf("gate at 5%%: got %d metrics, want throughput (-10%%) and TTFT (+20%%)", len(got))
	}
	if got := c.Slower(15); len(got) != 1 || got[0].Metric != "median_ttft_ms" {
		t.Errorf("gate at 15%%: got %+v, want only TTFT", got)
	}
	if msg := SlowerText(c.Slower(15), 15); !strings.Contains(msg, "sweep c=8 median_ttft_ms +20.5% (slower (>99.9%))") {
		t.Errorf("gate message: %s", msg)
	}

	var out bytes.Buffer
	if err := WriteComparison(&out, c, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"95% interval", "verdict", "output_throughput", "slower (>99.9%)", "Welch's t-test"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, out.String())
		}
	}
}
