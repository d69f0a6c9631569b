package tune

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
)

// halving gives every point one round, then relaunches the best share
// (Keep) of them, the baseline always among them, for the full rounds
// more, stage after stage, until one point besides the baseline is left.
// For servers that load fast: it spends launches to save rounds.
func (t *tuner) halving(ctx context.Context) error {
	for _, pt := range t.rec.Points {
		if pt.Status != PointPending {
			continue
		}
		if err := t.interrupted(); err != nil {
			return err
		}
		if t.outOfBudget(pt, 1) {
			return nil
		}
		if err := t.measure(ctx, pt, 1, false); err != nil {
			return err
		}
	}
	full := t.fullRounds()
	base := t.rec.Points[0]
	// The contenders: every usable point halving has not dropped (a
	// resumed tune knows the dropped ones by their note).
	var alive []*Point
	for _, p := range t.ranked() {
		if p != base && p.Raced == "" {
			alive = append(alive, p)
		}
	}
	for stage := 1; len(alive) > 1; stage++ {
		keep := max(1, int(math.Ceil(float64(len(alive))*t.rec.Space.Keep)))
		keep = min(keep, len(alive)-1)
		for _, pt := range alive[keep:] {
			pt.Raced = fmt.Sprintf("halving: dropped after stage %d with %d round(s)", stage-1, len(pt.Rounds))
		}
		alive = alive[:keep]
		runs := slices.Clone(alive)
		if usable(base) {
			runs = append(runs, base)
		}
		target := 1 + stage*full
		for _, pt := range runs {
			if len(pt.Rounds) >= target || pt.Status == PointReused {
				continue
			}
			if err := t.interrupted(); err != nil {
				return err
			}
			if t.outOfBudget(pt, target-len(pt.Rounds)) {
				return nil
			}
			if err := t.measure(ctx, pt, target-len(pt.Rounds), false); err != nil {
				return err
			}
		}
		var next []*Point
		for _, p := range t.ranked() {
			if contains(alive, p) {
				next = append(next, p)
			}
		}
		alive = next
	}
	return nil
}

// ranked lists the usable, feasible points, best objective first.
func (t *tuner) ranked() []*Point {
	var out []*Point
	for _, p := range t.rec.Points {
		if usable(p) && len(p.Violates) == 0 {
			out = append(out, p)
		}
	}
	o := t.rec.Space.Objective
	sort.SliceStable(out, func(i, j int) bool { return o.Better(out[i].Objective.Mean, out[j].Objective.Mean) })
	return out
}

func contains(ps []*Point, p *Point) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
