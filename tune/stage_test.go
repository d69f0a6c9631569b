package tune

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// halvingTuner is a halving tune of five points (the baseline and four
// contenders, best last) after every point's first round: keep half,
// 2 rounds in full.
func halvingTuner(t *testing.T) *tuner {
	t.Helper()
	tu := newTestTuner(point(0, 100, 10), point(1, 100, 13), point(2, 100, 12), point(3, 100, 11), point(4, 100, 9))
	tu.rec.Strategy, tu.rec.Space.Keep, tu.rec.Space.Rounds = StrategyHalving, 0.5, 2
	for _, p := range tu.rec.Points {
		p.Launches = 1
	}
	return tu
}

// give adds rounds of value v to the points until each has n, as a
// stage's tasks would.
func give(tu *tuner, v float64, n int, points ...int) {
	for _, i := range points {
		p := tu.rec.Points[i]
		for len(p.Rounds) < n {
			p.Rounds = append(p.Rounds, map[string]float64{"median_itl_ms": v + float64(i)/100, "p99_ttft_ms": 100})
		}
		p.Launches++
		tu.summarize(p)
	}
}

// items shows a stage's items as POINT@ROUNDS.
func items(its []StageItem) string {
	var s []string
	for _, it := range its {
		s = append(s, fmt.Sprintf("%d@%d", it.Point, it.Rounds))
	}
	return strings.Join(s, " ")
}

// TestHalvingStages: halving's stages are planned one at a time from the
// record (as a resumed tune or a further job array plans them): the best
// half of the contenders and the baseline go on to 1 + stage × full
// rounds, the rest are dropped with a note; a stage whose runs are not
// all measured yet is planned again as it was, without dropping more;
// the search ends when one contender is left.
func TestHalvingStages(t *testing.T) {
	tu := halvingTuner(t)
	if got := items(tu.nextItems()); got != "4@3 3@3 0@3" {
		t.Fatalf("stage 1: %q, want the best two contenders and the baseline to 3 rounds", got)
	}
	if tu.rec.HalvingStage != 1 || tu.rec.Points[1].Raced == "" || tu.rec.Points[2].Raced == "" || tu.rec.Points[3].Raced != "" {
		t.Fatalf("stage %d, notes %q %q %q: want points 1 and 2 dropped", tu.rec.HalvingStage, tu.rec.Points[1].Raced, tu.rec.Points[2].Raced, tu.rec.Points[3].Raced)
	}
	// A task measured point 4 only: the stage is planned again for the
	// other two, nothing more is dropped.
	give(tu, 9, 3, 4)
	if got := items(tu.nextItems()); got != "3@3 0@3" || tu.rec.HalvingStage != 1 {
		t.Fatalf("stage 1 again: %q at stage %d, want 3@3 0@3 at stage 1", got, tu.rec.HalvingStage)
	}
	give(tu, 11, 3, 3, 0)
	if got := items(tu.nextItems()); got != "4@5 0@5" || tu.rec.HalvingStage != 2 || tu.rec.Points[3].Raced == "" {
		t.Fatalf("stage 2: %q at stage %d (point 3: %q), want 4@5 0@5 at stage 2 with point 3 dropped", got, tu.rec.HalvingStage, tu.rec.Points[3].Raced)
	}
	give(tu, 9, 5, 4, 0)
	if got := tu.nextItems(); got != nil {
		t.Fatalf("after the last stage: %q, want nothing left", items(got))
	}
}

// TestNextItemsPending: the points a job array's tasks left (pending,
// running when a task was killed, not run for the budget) are measured
// next, at their first rounds; measured, failed and reused ones are not.
func TestNextItemsPending(t *testing.T) {
	tu := newTestTuner(point(0, 100, 10, 10, 10), point(1, 100), point(2, 100), point(3, 100), point(4, 100), point(5, 100, 9, 9, 9))
	tu.rec.Space.Rounds = 3
	tu.rec.Points[1].Status = PointPending
	tu.rec.Points[2].Status = PointRunning
	tu.rec.Points[3].Status = PointNotRun
	tu.rec.Points[4].Status = PointFailed
	tu.rec.Points[5].Status = PointReused
	if got := items(tu.nextItems()); got != "1@3 2@3 3@3" {
		t.Errorf("grid: %q, want 1@3 2@3 3@3", got)
	}
	tu.rec.Strategy = StrategyHalving
	if got := items(tu.nextItems()); got != "1@1 2@1 3@1" {
		t.Errorf("halving: %q, want the first round of each: 1@1 2@1 3@1", got)
	}
}

// TestCollectStages: --resume takes from every stage's shares the point
// measured furthest (more launches), whatever order the files come in,
// and a point measured no further is not taken again.
func TestCollectStages(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	rec := NewRecord(dir, now)
	rec.Array = &Array{Tasks: 2}
	rec.Points = []*Point{{N: 0, Status: PointOK, Launches: 1, Rounds: make([]map[string]float64, 1)}, {N: 1, Status: PointPending}}
	if err := rec.Save(now); err != nil {
		t.Fatal(err)
	}
	share := func(stage, k int, launches, rounds int, status string) {
		sh, err := LoadShard(dir, stage, k)
		if err != nil {
			t.Fatal(err)
		}
		sh.Points[0] = &Point{N: 0, Status: status, Launches: launches, Rounds: make([]map[string]float64, rounds)}
		sh.Status, sh.Timing.WallSeconds = TuneDone, 1
		if err := sh.Save(now); err != nil {
			t.Fatal(err)
		}
	}
	rec.Array.Stage.N = 10 // sorts before stage 2 by name
	if err := rec.Save(now); err != nil {
		t.Fatal(err)
	}
	share(10, 0, 3, 5, PointOK)
	rec.Array.Stage.N = 2
	if err := rec.Save(now); err != nil {
		t.Fatal(err)
	}
	share(2, 1, 2, 3, PointOK)
	n, err := rec.Collect()
	if err != nil || n != 1 || rec.Points[0].Launches != 3 || len(rec.Points[0].Rounds) != 5 {
		t.Fatalf("collected %d (%v): point 0 has %d launches, %d rounds; want 1 taken, with 3 launches and 5 rounds", n, err, rec.Points[0].Launches, len(rec.Points[0].Rounds))
	}
	if rec.Timing.TaskSeconds != 2 {
		t.Errorf("task seconds %v, want both shares' 2", rec.Timing.TaskSeconds)
	}
	if n, _ := rec.Collect(); n != 0 {
		t.Errorf("collected %d again, want 0", n)
	}
	if rec.Points[1].Status != PointPending {
		t.Errorf("point 1 is %s, want pending (no share measured it)", rec.Points[1].Status)
	}
}

// TestLoadShardStage: a task of a stage that --resume has moved past, or
// of a tune that was not planned as a job array, refuses to run.
func TestLoadShardStage(t *testing.T) {
	dir := t.TempDir()
	rec := NewRecord(dir, time.Now())
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadShard(dir, 0, 0); err == nil || !strings.Contains(err.Error(), "not planned as a job array") {
		t.Errorf("no array: %v", err)
	}
	rec.Array = &Array{Tasks: 2, Stage: Stage{N: 1, Tasks: 1, Items: []StageItem{{Point: 0, Rounds: 3}}}}
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadShard(dir, 0, 0); err == nil || !strings.Contains(err.Error(), "--stage 0: tune "+dir+" is at stage 1") {
		t.Errorf("stale stage: %v", err)
	}
	sh, err := LoadShard(dir, 1, 0)
	if err != nil || sh.Path() != filepath.Join(dir, "shard-1-0.json") {
		t.Errorf("stage 1 task 0: %v, file %v", err, sh)
	}
}
