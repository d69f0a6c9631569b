package tune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestGridFindsTheOptimum: a grid over NCCL_PROTO and NCCL_ALGO on the
// sim's model: the Tree points crash during CUDA-graph capture and are
// recorded failed with that phase while the search goes on; LL128 wins
// beyond noise; the profile it writes extends the base, sets only
// NCCL_PROTO (the base has NCCL_ALGO=Ring already) and `sglaunch config`
// accepts it. A second tune of the same space reuses every finished
// point and launches only the failed ones again; show and report read it.
func TestGridFindsTheOptimum(t *testing.T) {
	// Five rounds at a steady ITL: one round cut short by a stall of the
	// loaded machine must not leave the winner within noise.
	h := newHomeITL(t, 5, "", steadyITL)
	space := h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL128]
  env.NCCL_ALGO: [Ring, Tree]
objective: {workload: quick, metric: median_tpot_ms}
strategy: grid
`)
	r := h.tune(t, "--space", space)
	rec := h.last(t)
	if len(rec.Points) != 5 {
		t.Fatalf("got %d points, want 5 (the baseline and a 2x2 grid)\n%s", len(rec.Points), r.stdout)
	}
	for _, p := range rec.Points {
		tree := slices.Contains(p.Sets, "env.NCCL_ALGO=Tree")
		switch {
		case tree && (p.Status != "failed" || p.Phase != "capturing CUDA graphs" || !strings.Contains(p.Reason, "crashed during the load")):
			t.Errorf("point %d %v: got status %q phase %q reason %q, want failed during capturing CUDA graphs", p.N, p.Sets, p.Status, p.Phase, p.Reason)
		case !tree && p.Status != "ok":
			t.Errorf("point %d %v: got status %q (%s), want ok", p.N, p.Sets, p.Status, p.Reason)
		}
	}
	v := rec.Verdict
	if v == nil || v.Winner < 0 || !slices.Equal(rec.Points[v.Winner].Sets, []string{"env.NCCL_PROTO=LL128", "env.NCCL_ALGO=Ring"}) {
		t.Fatalf("verdict: got %+v, want the winner NCCL_PROTO=LL128 with NCCL_ALGO=Ring\n%s", v, r.stdout)
	}
	if !strings.Contains(r.stdout, "winner: point") || !strings.Contains(r.stdout, "beyond noise") {
		t.Errorf("stdout does not name the winner beyond noise:\n%s", r.stdout)
	}
	b, err := os.ReadFile(v.Profile)
	if err != nil {
		t.Fatal(err)
	}
	prof := string(b)
	for _, want := range []string{"record " + rec.ID, "extends: tb\n", "env:\n  NCCL_PROTO: LL128\n"} {
		if !strings.Contains(prof, want) {
			t.Errorf("profile lacks %q:\n%s", want, prof)
		}
	}
	var body []string
	for _, l := range strings.Split(prof, "\n") {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	if got := strings.Join(body, "\n"); got != "name: tb-tuned\nextends: tb\nenv:\n  NCCL_PROTO: LL128\n" {
		t.Errorf("profile sets more than what changed:\n%s", prof)
	}
	cfg := h.run(t, "config", "--profile", v.Profile)
	if cfg.code != 0 || !strings.Contains(cfg.stdout, "NCCL_PROTO=LL128") || !strings.Contains(cfg.stdout, "NCCL_ALGO=Ring") {
		t.Errorf("sglaunch config --profile %s: exit %d\n%s%s", v.Profile, cfg.code, cfg.stdout, cfg.stderr)
	}

	// The same space again: the records are the cache.
	r2 := h.tune(t, "--space", space)
	rec2 := h.last(t)
	if rec2.ID == rec.ID {
		t.Fatal("the second tune wrote no record of its own")
	}
	if !strings.Contains(r2.stderr, "reused 3 finished record(s), not run again") {
		t.Errorf("the second tune does not say it reused the three measured points:\n%s", r2.stderr)
	}
	for _, p := range rec2.Points {
		want := "reused"
		if slices.Contains(p.Sets, "env.NCCL_ALGO=Tree") {
			want = "failed"
		}
		if p.Status != want {
			t.Errorf("second tune, point %d: got %q, want %q", p.N, p.Status, want)
		}
	}
	if rec2.Timing.Launches != 2 {
		t.Errorf("second tune: got %d launches, want 2 (the failed points only)", rec2.Timing.Launches)
	}

	show := h.run(t, "tune", "show", rec.ID)
	if show.code != 0 || !strings.Contains(show.stdout, "capturing CUDA graphs") || !strings.Contains(show.stdout, "winner: point") {
		t.Errorf("tune show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}
	page := filepath.Join(h.dir, "tune.html")
	rep := h.run(t, "tune", "report", "-o", page, rec.ID)
	html, _ := os.ReadFile(page)
	if rep.code != 0 || strings.Count(string(html), `class="mean"`) != 3 || !strings.Contains(string(html), `id="verdict"`) || strings.Count(string(html), `class="effect"`) != 2 {
		t.Errorf("tune report: exit %d, want a chart with the 3 measured points, the verdict and 2 parameter effects\n%s\n%.3000s", rep.code, rep.stderr, html)
	}
}

// TestWithinNoiseNoWinner: a space over a variable the model ignores
// differs only by the noise: no winner, no profile. The baseline comes
// from a bench record made before the tune, which the tune reuses.
func TestWithinNoiseNoWinner(t *testing.T) {
	h := newHome(t, 3, "  SGLANG_SIM_PERF_NOISE: \"0.03\"\n")
	if b := h.run(t, "bench", "--profile", "tb", "--skip-preflight", "-w", "quick"); b.code != 0 {
		t.Fatalf("bench: exit %d\n%s", b.code, b.stderr)
	}
	space := h.space(t, `parameters:
  env.NCCL_DEBUG: [INFO, WARN]
objective: {workload: quick, metric: median_tpot_ms}
`)
	r := h.tune(t, "--space", space)
	rec := h.last(t)
	if rec.Points[0].Status != "reused" || !strings.Contains(r.stderr, "point 0 (baseline) from record") {
		t.Errorf("the baseline's bench record was not reused: status %q\n%s", rec.Points[0].Status, r.stderr)
	}
	if v := rec.Verdict; v == nil || v.Winner != -1 || !strings.Contains(v.Text, "no winner beyond noise") || v.Profile != "" {
		t.Fatalf("verdict: got %+v, want no winner beyond noise\n%s", v, r.stdout)
	}
	if m, _ := filepath.Glob(filepath.Join(rec.dir, "*.yaml")); len(m) > 0 {
		t.Errorf("a profile was written without a winner: %v", m)
	}
}

// TestKillNineThenResume: sglaunch tune killed with SIGKILL in the middle
// leaves no server running, and --resume measures only the points that
// had not finished.
func TestKillNineThenResume(t *testing.T) {
	h := newHome(t, 3, "")
	space := h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL, LL128]
objective: {workload: quick, metric: median_tpot_ms}
`)
	b := h.startTune(t, space)
	var before tuneRecord
	testkit.WaitFor(t, tuneTimeout, "two points finished and a third running", func() bool {
		recs := h.tunes(t)
		if len(recs) == 0 {
			return false
		}
		before = recs[0]
		return len(before.Points) == 4 && before.Points[1].Status == "ok" && before.Points[2].Status == "running"
	})
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.done
	testkit.WaitFor(t, 20*time.Second, "no server left after kill -9", func() bool { return len(servers()) == 0 })

	r := h.run(t, "tune", "--skip-preflight", "--resume", before.ID)
	if r.code != 0 {
		t.Fatalf("tune --resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	after := h.last(t)
	if after.ID != before.ID || after.Status != "done" {
		t.Fatalf("resume: got tune %s status %s, want %s done", after.ID, after.Status, before.ID)
	}
	for _, n := range []int{0, 1} {
		p := after.Points[n]
		if p.Launches != 1 || !slices.Equal(p.Records, before.Points[n].Records) {
			t.Errorf("point %d was run again: %d launches, records %v (before the kill: %v)", n, p.Launches, p.Records, before.Points[n].Records)
		}
		if strings.Contains(r.stderr, "point "+string(rune('0'+n))+"/3 [") {
			t.Errorf("the resume shows progress for the finished point %d:\n%s", n, r.stderr)
		}
	}
	for _, p := range after.Points[2:] {
		if p.Status != "ok" || len(p.Rounds) != 3 {
			t.Errorf("point %d after resume: got %s with %d rounds, want ok with 3", p.N, p.Status, len(p.Rounds))
		}
	}
	if left := servers(); len(left) > 0 {
		t.Errorf("servers left running: %v", left)
	}
}

// TestBudgetStopsCleanly: a budget that holds one point stops the search
// after it and lists the points not run.
func TestBudgetStopsCleanly(t *testing.T) {
	h := newHome(t, 2, "")
	space := h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL, LL128]
objective: {workload: quick, metric: median_tpot_ms}
`)
	r := h.tune(t, "--space", space, "--budget", "1s")
	rec := h.last(t)
	if rec.Status != "budget" || rec.Timing.Launches != 1 {
		t.Fatalf("got status %s with %d launches, want budget after 1\n%s", rec.Status, rec.Timing.Launches, r.stdout)
	}
	want := "not run: 1 (env.NCCL_PROTO=Simple), 2 (env.NCCL_PROTO=LL), 3 (env.NCCL_PROTO=LL128)"
	if !strings.Contains(rec.Note, want) || !strings.Contains(r.stdout, want) {
		t.Errorf("note: got %q, want it (and stdout) to hold %q\n%s", rec.Note, want, r.stdout)
	}
	for _, p := range rec.Points[1:] {
		if p.Status != "not run" {
			t.Errorf("point %d: got %q, want not run", p.N, p.Status)
		}
	}
}

// TestAdaptiveMatchesTheGrid: racing finds the model's optimum, the
// answer TestGridFindsTheOptimum's grid finds, with fewer rounds than
// the grid's every round of every point and one launch per point at most.
func TestAdaptiveMatchesTheGrid(t *testing.T) {
	const rounds = 5
	h := newHomeITL(t, rounds, "", steadyITL)
	r := h.tune(t, "--space", h.space(t, `parameters:
  env.NCCL_PROTO: [LL128, LL, Simple]
objective: {workload: quick, metric: median_tpot_ms}
`), "--strategy", "adaptive")
	a := h.last(t)
	if v := a.Verdict; v == nil || v.Winner < 0 || !slices.Equal(a.Points[v.Winner].Sets, []string{"env.NCCL_PROTO=LL128"}) {
		t.Fatalf("adaptive: got %+v, want the winner NCCL_PROTO=LL128\n%s", a.Verdict, r.stdout)
	}
	if grid := len(a.Points) * rounds; a.Timing.Rounds >= grid || a.Timing.Launches > len(a.Points) || !strings.Contains(r.stdout, "beyond noise worse than point") {
		t.Errorf("adaptive: %d rounds, %d launches for %d points; want fewer rounds than the grid's %d, a launch per point at most, and a point raced out\n%s",
			a.Timing.Rounds, a.Timing.Launches, len(a.Points), grid, r.stdout)
	}
}

// TestHalving: every point one round, then the better half relaunched
// with the baseline for the full rounds; the other half is dropped.
func TestHalving(t *testing.T) {
	h := newHomeITL(t, 4, "", steadyITL)
	r := h.tune(t, "--space", h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL128]
objective: {workload: quick, metric: median_tpot_ms}
strategy: halving
`))
	rec := h.last(t)
	wantHalvingOf2(t, rec, r.stdout)
	if !strings.HasPrefix(rec.Points[1].Raced, "halving: dropped after stage 0") {
		t.Errorf("point 1: got %q, want it dropped by halving", rec.Points[1].Raced)
	}
}

// TestSIGINTEndsThePointCleanly: Ctrl-C in the middle of a point stops
// its server (drained, nothing left), marks the record interrupted and
// exits 128+SIGINT, saying how to go on; the progress lines said where
// the search was, with an ETA once a point was measured; --resume then
// finishes the search without running a finished point again.
func TestSIGINTEndsThePointCleanly(t *testing.T) {
	h := newHome(t, 3, "")
	space := h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL]
objective: {workload: quick, metric: median_tpot_ms}
`)
	b := h.startTune(t, space)
	testkit.WaitFor(t, tuneTimeout, "a point measured and the next one running", func() bool {
		recs := h.tunes(t)
		return len(recs) == 1 && len(recs[0].Points) == 3 && recs[0].Points[0].Status == "ok" && recs[0].Points[1].Status == "running"
	})
	if err := b.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.done:
	case <-time.After(tuneTimeout):
		t.Fatalf("tune did not end within %v of SIGINT\n%s", tuneTimeout, b.stderr.String())
	}
	if code := b.cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGINT) {
		t.Errorf("exit %d after SIGINT, want %d\n%s", code, 128+int(syscall.SIGINT), b.stderr.String())
	}
	rec := h.last(t)
	if rec.Status != "interrupted" || rec.Points[0].Status != "ok" {
		t.Errorf("record: status %s, point 0 %s; want interrupted with point 0 ok", rec.Status, rec.Points[0].Status)
	}
	for _, want := range []string{"tune interrupted by interrupt", "--resume", "tune: point 1/2 [", "| ETA "} {
		if !strings.Contains(b.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, b.stderr.String())
		}
	}
	testkit.WaitFor(t, 20*time.Second, "no server left after SIGINT", func() bool { return len(servers()) == 0 })

	r := h.run(t, "tune", "--skip-preflight", "--resume", rec.ID)
	if r.code != 0 {
		t.Fatalf("tune --resume: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	after := h.last(t)
	if after.Status != "done" || after.Points[0].Launches != 1 {
		t.Errorf("resume: status %s, point 0 launched %d times; want done and 1", after.Status, after.Points[0].Launches)
	}
}

// TestRandomDrawsItsCount: the random strategy measures the baseline and
// count points drawn from the grid, each a distinct point of the space,
// and the same seed draws the same points in a new home.
func TestRandomDrawsItsCount(t *testing.T) {
	const space = `parameters:
  env.NCCL_PROTO: [Simple, LL, LL128]
  env.NCCL_MIN_NCHANNELS: [8, 16]
objective: {workload: quick, metric: median_tpot_ms}
strategy: random
count: 2
seed: 7
`
	var draws [][]string
	for range 2 {
		h := newHome(t, 2, "")
		h.tune(t, "--space", h.space(t, space))
		rec := h.last(t)
		if rec.Strategy != "random" || len(rec.Points) != 3 || rec.Timing.Launches != 3 {
			t.Fatalf("got strategy %s, %d points, %d launches; want random, the baseline and 2 drawn, 3 launches", rec.Strategy, len(rec.Points), rec.Timing.Launches)
		}
		var drawn []string
		for _, p := range rec.Points[1:] {
			if len(p.Sets) != 2 || !strings.HasPrefix(p.Sets[0], "env.NCCL_PROTO=") || !strings.HasPrefix(p.Sets[1], "env.NCCL_MIN_NCHANNELS=") || p.Status != "ok" {
				t.Errorf("point %d: sets %v, status %s; want one value of each parameter, measured", p.N, p.Sets, p.Status)
			}
			drawn = append(drawn, strings.Join(p.Sets, " "))
		}
		if drawn[0] == drawn[1] {
			t.Errorf("the same point drawn twice: %v", drawn)
		}
		draws = append(draws, drawn)
	}
	if !slices.Equal(draws[0], draws[1]) {
		t.Errorf("seed 7 drew %v, then %v: want the same points", draws[0], draws[1])
	}
}
