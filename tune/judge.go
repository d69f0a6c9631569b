package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/sglaunch/sglaunch/bench"
)

// Verdicts of a point against the baseline.
const (
	VerdictBetter = "better"
	VerdictWorse  = "worse"
	VerdictNoise  = "within noise"
	VerdictTooFew = "too few rounds to judge"
)

// judge compares every point with the baseline and names the winner: the
// best feasible point, only when it beats the baseline beyond noise; its
// profile is then written beside the record.
func (t *tuner) judge() { t.judgeWith(t.minimalSets) }

// judgeWith is judge with the winner's assignments trimmed by minimal.
func (t *tuner) judgeWith(minimal func(*Point) []string) {
	rec := t.rec
	base := rec.Points[0]
	for _, p := range rec.Points[1:] {
		p.VsBaseline = t.delta(base, p)
	}
	v := &Verdict{Winner: -1}
	rec.Verdict = v
	ranked := t.ranked()
	o := rec.Space.Objective
	switch {
	case !usable(base):
		v.Text = "no winner: the baseline has no result to beat (" + orText(base.Reason, base.Status) + ")"
		return
	case len(ranked) == 0:
		v.Text = "no winner: no point meets the constraints"
		return
	case ranked[0] == base:
		v.Text = fmt.Sprintf("no winner beyond noise: the baseline has the best %s", o.Metric)
		return
	}
	// The winner is the best feasible point that beats the baseline
	// beyond noise; the best by mean alone may owe its place to a noisy
	// round.
	var best *Point
	for _, p := range ranked {
		if p != base && p.VsBaseline != nil && p.VsBaseline.Verdict == VerdictBetter {
			best = p
			break
		}
	}
	if best == nil {
		top := ranked[0]
		d := top.VsBaseline
		switch {
		case !d.Judged:
			v.Text = fmt.Sprintf("no winner beyond noise: point %d (%s) is best by %+.1f%%, but with %d and %d rounds there are too few to judge the noise (%d a side)", top.N, top.Label(), d.Pct, top.Objective.N, base.Objective.N, bench.JudgeRounds)
		default:
			v.Text = fmt.Sprintf("no winner beyond noise: the best point, %d (%s), differs from the baseline by %s", top.N, top.Label(), d.Text())
		}
		return
	}
	d := best.VsBaseline
	v.Winner = best.N
	v.Text = fmt.Sprintf("winner: point %d (%s): %s %+.1f%% [%+.1f%%, %+.1f%%] against the baseline, beyond noise (95 %%, Welch)", best.N, best.Label(), o.Metric, d.Pct, d.LoPct, d.HiPct)
	if best != ranked[0] {
		v.Text += fmt.Sprintf("; point %d (%s) has a better mean but is within noise of the baseline", ranked[0].N, ranked[0].Label())
	}
	sets := minimal(best)
	path := filepath.Join(rec.Dir(), rec.BaseName+"-tuned.yaml")
	if err := os.WriteFile(path, ProfileYAML(rec, best, sets), 0o644); err != nil {
		v.Text += "; the profile could not be written: " + err.Error()
		return
	}
	v.Profile = path
}

// delta is p's objective against base's, by the interval of bench compare.
func (t *tuner) delta(base, p *Point) *Delta {
	if !usable(base) || !usable(p) {
		return nil
	}
	o := t.rec.Space.Objective
	a, b := column(base.Rounds, o.Metric), column(p.Rounds, o.Metric)
	ref := abs(base.Objective.Mean)
	d := &Delta{Verdict: VerdictTooFew}
	if ref == 0 {
		return d
	}
	d.Pct = (p.Objective.Mean - base.Objective.Mean) / ref * 100
	diff, lo, hi, ok := bench.Interval(a, b)
	if !ok {
		return d
	}
	d.LoPct, d.HiPct, d.HasInterval = lo/ref*100, hi/ref*100, true
	if len(a) < bench.JudgeRounds || len(b) < bench.JudgeRounds {
		return d
	}
	d.Judged = true
	switch {
	case lo <= 0 && hi >= 0:
		d.Verdict = VerdictNoise
	case diff*float64(o.Direction) > 0:
		d.Verdict = VerdictBetter
	default:
		d.Verdict = VerdictWorse
	}
	return d
}

// minimalSets drops the winner's assignments that change nothing: those
// without which its plan keeps its fingerprint (the base already has the
// value).
func (t *tuner) minimalSets(p *Point) []string {
	sets := slices.Clone(p.Sets)
	for i := 0; i < len(sets); {
		without := slices.Delete(slices.Clone(sets), i, i+1)
		pl, err := t.cfg.Resolve(without)
		if err == nil && pl.Fingerprint == p.Fingerprint {
			sets = without
			continue
		}
		i++
	}
	return sets
}

func orText(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
