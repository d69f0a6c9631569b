package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sglaunch/sglaunch/loadgen"
)

// Judging a comparison: whether B is faster or slower than A beyond the
// noise its rounds show.

// Better directions of metrics.
const (
	lowerIsBetter  = -1
	neither        = 0
	higherIsBetter = 1
)

// direction says which way a metric gets better: throughputs, the decode
// rate, goodput and the accept length up, latencies down; counts neither.
func direction(metric string) int {
	switch {
	case strings.HasSuffix(metric, "_throughput"), metric == "decode_tok_s", metric == "request_goodput", metric == "accept_length":
		return higherIsBetter
	case strings.HasSuffix(metric, "_ms"):
		return lowerIsBetter
	}
	return neither
}

// minRounds is the fewest rounds on each side from which a level's noise
// is judged: with two, Student's t has one or two degrees of freedom and a
// 95 % interval runs to hundreds of percent.
const minRounds = 3

// Verdicts of a metric's delta.
const (
	// VerdictFaster and VerdictSlower: the metric's 95 % interval excludes
	// 0, on the better or the worse side.
	VerdictFaster = "faster"
	VerdictSlower = "slower"
	// VerdictNoise: the interval holds 0.
	VerdictNoise = "within noise"
	// VerdictTooFew: a side ran fewer than minRounds rounds of the level;
	// its interval, if any, is shown but judges nothing.
	VerdictTooFew = "too few rounds to judge"
)

// roundValues are a level's values of metric, one per round (the level's
// own value when it ran once).
func roundValues(l LevelRecord, metric string) []float64 {
	if len(l.Rounds) == 0 {
		v, ok := levelMetric(l, metric)
		if !ok {
			return nil
		}
		return []float64{v}
	}
	var out []float64
	for _, r := range l.Rounds {
		v, ok := levelMetric(LevelRecord{LevelResult: levelOf(r), AcceptLength: r.AcceptLength}, metric)
		if !ok {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// judge adds the metric's own interval, confidence and verdict to d, from
// a and b, that metric's values in each round of the level. The interval
// is centred on d's own delta (B - A of the level's values, as shown)
// with the noise the rounds show (Welch's t, 95 %), so a delta always
// lies inside its interval, and the verdict follows it: faster or slower
// when it excludes 0, within noise when it holds 0, too few rounds to
// judge when a side ran fewer than minRounds.
func judge(d *MetricDelta, a, b []float64) {
	d.RoundsA, d.RoundsB = len(a), len(b)
	dir := direction(d.Metric)
	if dir == neither || !d.HasDelta || d.A == 0 {
		return
	}
	tooFew := len(a) < minRounds || len(b) < minRounds
	if tooFew {
		d.Verdict = VerdictTooFew
	}
	s, ok := welch(a, b)
	if !ok {
		return
	}
	diff, scale := d.B-d.A, 100/math.Abs(d.A)
	lo, hi := s.interval(diff)
	d.IntervalPct = &[2]float64{lo * scale, hi * scale}
	if tooFew {
		return
	}
	d.Confidence = s.confidence(diff)
	switch {
	case lo <= 0 && hi >= 0:
		d.Verdict = VerdictNoise
	case diff*float64(dir) > 0:
		d.Verdict = VerdictFaster
	default:
		d.Verdict = VerdictSlower
	}
}

// IntervalText is the metric's interval as a comparison shows it: empty
// for a metric with no better direction, n/a when its rounds give none.
func (m MetricDelta) IntervalText() string {
	if m.IntervalPct == nil {
		if direction(m.Metric) == neither {
			return ""
		}
		return "n/a"
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", m.IntervalPct[0], m.IntervalPct[1])
}

// VerdictText is the verdict as a comparison shows it, with the
// confidence, or the rounds that were too few to judge.
func (m MetricDelta) VerdictText() string {
	switch m.Verdict {
	case "":
		return ""
	case VerdictTooFew:
		return fmt.Sprintf("%s (rounds %d/%d)", VerdictTooFew, m.RoundsA, m.RoundsB)
	}
	return fmt.Sprintf("%s (%s)", m.Verdict, confText(m.Confidence))
}

func confText(c float64) string {
	if c > 0.999 {
		return ">99.9%"
	}
	return fmt.Sprintf("%.1f%%", c*100)
}

// judged reports whether the rounds judged the metric's noise.
func (m MetricDelta) judged() bool {
	return m.Verdict == VerdictFaster || m.Verdict == VerdictSlower || m.Verdict == VerdictNoise
}

// Slower lists the key metrics on which B is slower than A by more than
// pct percent: judged slower beyond the noise of their rounds, or, for a
// level with too few rounds on either side to judge the noise (or a
// command workload's metric), by the point difference alone.
func (c Comparison) Slower(pct float64) []MetricDelta {
	var out []MetricDelta
	for _, m := range c.Metrics {
		dir := direction(m.Metric)
		if dir == neither || !m.HasDelta || !slices.Contains(KeyMetrics, m.Metric) {
			continue
		}
		worse := -m.DeltaPct * float64(dir)
		if worse <= pct {
			continue
		}
		if !m.judged() || m.Verdict == VerdictSlower {
			out = append(out, m)
		}
	}
	return out
}

// SlowerText says which metrics failed a --fail-if-slower gate.
func SlowerText(ms []MetricDelta, pct float64) string {
	var parts []string
	for _, m := range ms {
		p := fmt.Sprintf("%s %s %s %+.1f%%", m.Workload, m.Level, m.Metric, m.DeltaPct)
		if m.judged() {
			p += " (" + m.VerdictText() + ")"
		} else {
			p += fmt.Sprintf(" (too few rounds to judge the noise: %d/%d)", m.RoundsA, m.RoundsB)
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("B is slower than A by more than %g%%: %s", pct, strings.Join(parts, "; "))
}

// levelOf is a round as a level result, to read its metrics by name.
func levelOf(r RoundRecord) loadgen.LevelResult { return loadgen.LevelResult{Metrics: r.Metrics} }
