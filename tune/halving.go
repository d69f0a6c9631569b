package tune

import (
	"context"
	"sort"
)

// halving gives every point one round, then relaunches the best share
// (Keep) of them, the baseline always among them, for the full rounds
// more, stage after stage (halvingStage), until one point besides the
// baseline is left. For servers that load fast: it spends launches to
// save rounds.
func (t *tuner) halving(ctx context.Context) error {
	for _, pt := range t.rec.Points {
		if pt.Status != PointPending {
			continue
		}
		if err := t.measureItem(ctx, StageItem{Point: pt.N, Rounds: 1}); err != nil {
			return err
		}
	}
	for {
		items := t.halvingStage()
		if len(items) == 0 {
			return nil
		}
		for _, it := range items {
			if err := t.measureItem(ctx, it); err != nil {
				return err
			}
		}
	}
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
