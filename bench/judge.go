package bench

import "math"

// The statistics of Compare, for other judges of rounds (tune): the same
// Welch interval, the same better direction of a metric, the same
// fewest rounds to judge.

// JudgeRounds is the fewest rounds on each side from which a difference
// is judged beyond noise (what Compare calls too few rounds below it).
const JudgeRounds = minRounds

// BetterDirection is which way metric gets better: 1 up (throughputs,
// goodput, the decode rate, the accept length), -1 down (latencies in
// ms), 0 neither (counts).
func BetterDirection(metric string) int { return direction(metric) }

// Interval is the 95 % interval of mean(b) - mean(a) with the noise of
// each side's values (Welch's t), centred on that difference; ok is false
// with fewer than two values on either side.
func Interval(a, b []float64) (diff, lo, hi float64, ok bool) {
	s, ok := welch(a, b)
	if !ok {
		return 0, 0, 0, false
	}
	lo, hi = s.interval(s.diff)
	return s.diff, lo, hi, true
}

// RoundValues are a level's values of metric, one per round (the level's
// own value when it ran once); nil when a round lacks the metric.
func RoundValues(l LevelRecord, metric string) []float64 { return roundValues(l, metric) }

// LevelMetric is a level's metric by name (accept_length and
// decode_tok_s included); ok is false when the level has none.
func LevelMetric(l LevelRecord, metric string) (float64, bool) { return levelMetric(l, metric) }

// LevelMetricNames are the metrics a generator level has, in order.
func LevelMetricNames() []string { return append([]string(nil), levelMetricNames...) }

// MeanInterval is the mean of v and its 95 % interval (Student's t with
// n - 1 degrees of freedom); ok is false with fewer than two values.
func MeanInterval(v []float64) (mean, lo, hi float64, ok bool) {
	if len(v) == 0 {
		return 0, 0, 0, false
	}
	if len(v) < 2 {
		return v[0], v[0], v[0], false
	}
	m, variance := meanVar(v)
	s := spread{diff: m, se: math.Sqrt(variance / float64(len(v))), df: float64(len(v) - 1)}
	lo, hi = s.interval(m)
	return m, lo, hi, true
}
