package tune

import (
	"strings"
	"testing"
)

// TestSlurmStagesThenLocal: a halving tune --slurm whose first job array
// never ran. Its --resume finds every point left by the tasks (none left
// a share) and prints the next stage's array of them instead of
// launching anything; --resume --local then measures them here, halving's
// further stage included, and judges as a local halving would.
func TestSlurmStagesThenLocal(t *testing.T) {
	h := newHomeITL(t, 4, "", steadyITL) // it judges a winner, as TestHalving does
	r := h.tune(t, "--space", h.space(t, `parameters:
  env.NCCL_PROTO: [Simple, LL128]
objective: {workload: quick, metric: median_tpot_ms}
strategy: halving
`), "--slurm", "--tasks", "2")
	if !strings.Contains(r.stdout, "#SBATCH --array=0-1") || !strings.Contains(r.stdout, "--stage 0 ") {
		t.Fatalf("--slurm: want stage 0's array of 2 tasks:\n%s\n%s", r.stdout, r.stderr)
	}
	dir := h.last(t).dir

	r = h.run(t, "tune", "--resume", dir, "--skip-preflight")
	if r.code != 0 || !strings.Contains(r.stdout, "#SBATCH --array=0-1") || !strings.Contains(r.stdout, "--stage 1 ") ||
		!strings.Contains(r.stderr, "stage 0: task 1 left no share") || strings.Contains(r.stderr, "launching") {
		t.Fatalf("--resume: exit %d; want stage 1's array of the 3 points left, the tasks named, no launch:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if rec := h.last(t); rec.Timing.Launches != 0 || !strings.Contains(rec.Note, "stage 1: a job array of 2 task(s) measures point(s) 0, 1, 2") {
		t.Fatalf("after --resume: %d launches, note %q", rec.Timing.Launches, rec.Note)
	}

	r = h.run(t, "tune", "--resume", dir, "--skip-preflight", "--local")
	if r.code != 0 || strings.Contains(r.stdout, "#SBATCH") {
		t.Fatalf("--resume --local: exit %d, want the search here and no array:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rec := h.last(t)
	wantHalvingOf2(t, rec, r.stdout)
	if s := servers(); len(s) > 0 {
		t.Errorf("servers left running: %v", s)
	}
}
