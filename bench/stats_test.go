package bench

import (
	"math"
	"testing"
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
	s, ok := welch([]float64{10, 11, 12, 13}, []float64{12, 13, 14, 15, 16})
	if conf := s.confidence(s.diff); !ok || math.Abs(s.diff-2.5) > 1e-9 || math.Abs(conf-(1-0.034939)) > 1e-4 {
		t.Errorf("got diff %v conf %v, want 2.5 and %.6f", s.diff, conf, 1-0.034939)
	}
	if lo, hi := s.interval(s.diff); math.Abs(lo-(2.5-2.3654*0.95743)) > 2e-3 || math.Abs(hi-(2.5+2.3654*0.95743)) > 2e-3 {
		t.Errorf("interval [%v, %v], want [0.235, 4.765]", lo, hi)
	}
	if _, ok := welch([]float64{1}, []float64{1, 2}); ok {
		t.Error("one value on a side gave an interval")
	}
}

// TestDeltaFromZero: a change from 0 has no percentage.
func TestDeltaFromZero(t *testing.T) {
	if z := delta("w", "c=1", "failed", 0, 2); z.HasDelta {
		t.Errorf("a delta from zero: got %+v, want none", z)
	}
}
