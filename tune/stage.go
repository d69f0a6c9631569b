package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Array is how a tune --slurm planned runs: the sbatch settings its job
// arrays share and the stage in progress. Stage 0 is the first array;
// each `tune --resume` that finds points still to measure plans the next
// stage, another array of just those points.
type Array struct {
	Partition   string `json:"partition,omitempty"`
	Time        string `json:"time,omitempty"`
	Account     string `json:"account,omitempty"`
	Output      string `json:"output,omitempty"`
	GPUsPerNode int    `json:"gpus_per_node,omitempty"`
	// Tasks is the most tasks an array has (--tasks); a stage with fewer
	// points has a task a point.
	Tasks         int   `json:"tasks"`
	SkipPreflight bool  `json:"skip_preflight,omitempty"`
	Stage         Stage `json:"stage"`
}

// Stage is one job array's work: the points its tasks measure, item i
// by task i modulo Tasks.
type Stage struct {
	N     int         `json:"n"`
	Tasks int         `json:"tasks"`
	Items []StageItem `json:"items"`
}

// StageItem is a point a stage measures and the rounds it has when done.
type StageItem struct {
	Point  int `json:"point"`
	Rounds int `json:"rounds"`
}

// errBudget stops a search whose budget cannot hold the next point (the
// record says which points were not run); the search ends cleanly.
var errBudget = errors.New("out of budget")

// need is how many rounds the item still asks of its point; 0 when the
// point is done with this stage (measured to the item's rounds, raced or
// dropped, failed, or reused).
func (t *tuner) need(it StageItem) int {
	pt := t.rec.Points[it.Point]
	switch pt.Status {
	case PointPending, PointRunning, PointNotRun:
		return max(1, it.Rounds-len(pt.Rounds))
	case PointOK:
		if pt.Raced == "" {
			return max(0, it.Rounds-len(pt.Rounds))
		}
	}
	return 0
}

// firstRounds is the rounds a point gets at its first launch: one under
// halving, else every round (racing may stop it sooner).
func (t *tuner) firstRounds() int {
	if t.rec.Strategy == StrategyHalving {
		return 1
	}
	return t.fullRounds()
}

// nextItems is what the search measures next: the points not measured
// yet (a task died, was cancelled or ran out of budget), at their first
// rounds; else, under halving, the contenders of its next stage. nil
// when the search is over, which is exactly when a local Search would
// measure nothing.
func (t *tuner) nextItems() []StageItem {
	var items []StageItem
	for _, pt := range t.rec.Points {
		if pt.Status == PointPending || pt.Status == PointRunning || pt.Status == PointNotRun {
			items = append(items, StageItem{Point: pt.N, Rounds: t.firstRounds()})
		}
	}
	if len(items) > 0 || t.rec.Strategy != StrategyHalving {
		return items
	}
	return t.halvingStage()
}

// halvingStage is halving's next work: the runs of its current stage not
// yet at the stage's rounds (a task or a session died before them), else,
// after dropping all but the best share (Keep) of the contenders, the
// next stage's: the contenders kept and the baseline, each to 1 + stage ×
// full rounds. nil once one contender besides the baseline is left. The
// stage is kept in the record, so that a resumed tune goes on with it
// rather than dropping points again.
func (t *tuner) halvingStage() []StageItem {
	rec, full := t.rec, t.fullRounds()
	for {
		alive := t.contenders()
		if h := rec.HalvingStage; h > 0 {
			runs := alive
			if base := rec.Points[0]; usable(base) {
				runs = append(runs, base)
			}
			var items []StageItem
			for _, p := range runs {
				it := StageItem{Point: p.N, Rounds: 1 + h*full}
				if t.need(it) > 0 {
					items = append(items, it)
				}
			}
			if len(items) > 0 {
				return items
			}
		}
		if len(alive) <= 1 {
			return nil
		}
		keep := max(1, int(math.Ceil(float64(len(alive))*rec.Space.Keep)))
		keep = min(keep, len(alive)-1)
		for _, p := range alive[keep:] {
			p.Raced = fmt.Sprintf("halving: dropped after stage %d with %d round(s)", rec.HalvingStage, len(p.Rounds))
		}
		rec.HalvingStage++
	}
}

// contenders are halving's points still in the race, best first: usable,
// feasible, not the baseline, not dropped.
func (t *tuner) contenders() []*Point {
	var out []*Point
	for _, p := range t.ranked() {
		if p.N != 0 && p.Raced == "" {
			out = append(out, p)
		}
	}
	return out
}

// measureItem measures a point of a stage to the item's rounds (racing
// it under adaptive). A point that came back with fewer rounds than
// asked, unraced, is out of halving's race: asking again would relaunch
// it for ever.
func (t *tuner) measureItem(ctx context.Context, it StageItem) error {
	pt := t.rec.Points[it.Point]
	n := t.need(it)
	if n == 0 {
		return nil
	}
	if err := t.interrupted(); err != nil {
		return err
	}
	if t.outOfBudget(pt, n) {
		return errBudget
	}
	t.maybeRace()
	if err := t.measure(ctx, pt, n, t.rec.Strategy == StrategyAdaptive); err != nil {
		return err
	}
	if pt.Status == PointOK && pt.Raced == "" && len(pt.Rounds) < it.Rounds && t.rec.Strategy == StrategyHalving {
		pt.Raced = fmt.Sprintf("halving: out after %d of %d rounds", len(pt.Rounds), it.Rounds)
		return t.save()
	}
	return nil
}

// stageShare measures a task's share of its stage: item i of the stage
// when i is Shard modulo Shards.
func (t *tuner) stageShare(ctx context.Context) error {
	for i, it := range t.rec.Array.Stage.Items {
		if i%t.cfg.Shards != t.cfg.Shard {
			continue
		}
		if err := t.measureItem(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// mine reports whether this session measures pt: always, but for a task
// of a job array, when pt is an item of its share of the stage.
func (t *tuner) mine(pt *Point) bool {
	if t.cfg.Shards == 0 {
		return true
	}
	for i, it := range t.rec.Array.Stage.Items {
		if it.Point == pt.N {
			return i%t.cfg.Shards == t.cfg.Shard
		}
	}
	return false
}
