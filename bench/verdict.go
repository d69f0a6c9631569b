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

// significance is the confidence from which a difference is a verdict.
const significance = 0.95

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

// judge adds the interval, confidence and verdict of the rounds to d.
func judge(d *MetricDelta, a, b []float64) {
	d.RoundsA, d.RoundsB = len(a), len(b)
	dir := direction(d.Metric)
	if dir == neither {
		return
	}
	diff, lo, hi, conf, ok := welch(a, b)
	if !ok {
		return
	}
	ma, _ := meanVar(a)
	if ma == 0 {
		return
	}
	d.IntervalPct = &[2]float64{lo / math.Abs(ma) * 100, hi / math.Abs(ma) * 100}
	d.Confidence = conf
	switch {
	case conf < significance || diff == 0:
		d.Verdict = "within noise"
	case diff*float64(dir) > 0:
		d.Verdict = "faster"
	default:
		d.Verdict = "slower"
	}
}

// IntervalText is the metric's interval as a comparison shows it.
func (m MetricDelta) IntervalText() string {
	if m.IntervalPct == nil {
		if direction(m.Metric) == neither {
			return ""
		}
		return "n/a"
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", m.IntervalPct[0], m.IntervalPct[1])
}

// VerdictText is the verdict as a comparison shows it.
func (m MetricDelta) VerdictText() string {
	switch {
	case m.Verdict == "":
		if direction(m.Metric) != neither && (m.RoundsA < 2 || m.RoundsB < 2) {
			return fmt.Sprintf("(rounds %d/%d)", m.RoundsA, m.RoundsB)
		}
		return ""
	case m.Verdict == "within noise":
		return fmt.Sprintf("within noise (%s)", confText(m.Confidence))
	}
	return fmt.Sprintf("%s (%s)", m.Verdict, confText(m.Confidence))
}

func confText(c float64) string {
	if c > 0.999 {
		return ">99.9%"
	}
	return fmt.Sprintf("%.1f%%", c*100)
}

// Slower lists the key metrics on which B is slower than A by more than
// pct percent: judged slower beyond the noise of their rounds, or, for a
// level of one round on either side (no noise known), by the point
// difference alone.
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
		if m.IntervalPct == nil || m.Verdict == "slower" {
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
		if m.IntervalPct != nil {
			p += " (" + m.VerdictText() + ")"
		} else {
			p += " (no rounds to judge the noise)"
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("B is slower than A by more than %g%%: %s", pct, strings.Join(parts, "; "))
}

// levelOf is a round as a level result, to read its metrics by name.
func levelOf(r RoundRecord) loadgen.LevelResult { return loadgen.LevelResult{Metrics: r.Metrics} }
