package tune

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

const openSpace = `parameters:
  env.NCCL_PROTO: [LL, LL128]
objective:
  workload: decode-1
  metric: output_throughput
`

// openOptions are options for a new tune of profile "base" with the space
// file in dir; given names the flags the command line gave.
func openOptions(t *testing.T, dir string, given ...string) Options {
	t.Helper()
	space := filepath.Join(dir, "space.yaml")
	if err := os.WriteFile(space, []byte(openSpace), 0o644); err != nil {
		t.Fatal(err)
	}
	return Options{
		TunesDir: filepath.Join(dir, "tunes"), Profile: "base", SpaceFile: space,
		LoadBase: func(ref string) (Base, error) { return Base{Ref: ref, Name: ref}, nil },
		Given:    func(f string) bool { return f == "space" || slices.Contains(given, f) },
		Argv:     []string{"sglaunch", "tune"},
	}
}

func TestOpenNew(t *testing.T) {
	dir := t.TempDir()
	o := openOptions(t, dir, "strategy", "budget", "rounds")
	o.Strategy, o.Budget, o.Rounds = StrategyGrid, 90*time.Minute, 3
	rec, shard, shards, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	if shard != 0 || shards != 0 {
		t.Errorf("shard %d/%d, want none", shard, shards)
	}
	if rec.Base != "base" || rec.BaseName != "base" || rec.Strategy != StrategyGrid || rec.Space.Budget != 90*time.Minute || rec.Space.Rounds != 3 {
		t.Errorf("record: base %q %q, strategy %q, budget %v, rounds %d", rec.Base, rec.BaseName, rec.Strategy, rec.Space.Budget, rec.Space.Rounds)
	}
	if filepath.Dir(rec.Dir()) != o.TunesDir {
		t.Errorf("dir %s, want one under %s", rec.Dir(), o.TunesDir)
	}
}

// TestOpenRefuses pins the input errors of the flags, each naming its flag.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"no profile", func(o *Options) { o.Profile = "" }, "no profile given"},
		{"no space", func(o *Options) { o.Given = func(string) bool { return false } }, "no search space: profile base has no tune: section"},
		{"unknown strategy", func(o *Options) { o.Given, o.Strategy = given("space", "strategy"), "bisect" }, `--strategy "bisect": want one of`},
		{"random without count", func(o *Options) { o.Given, o.Strategy = given("space", "strategy"), StrategyRandom }, "--strategy random needs count:"},
		{"budget not positive", func(o *Options) { o.Given, o.Budget = given("space", "budget"), 0 }, "--budget 0s: want a positive duration"},
		{"rounds below one", func(o *Options) { o.Given, o.Rounds = given("space", "rounds"), 0 }, "--rounds 0: want 1 or more"},
		{"shard without resume", func(o *Options) { o.Given, o.Shard = given("space", "shard"), "0/2" }, "--shard goes with --resume DIR"},
		{"resume with space", func(o *Options) { o.Resume = "x" }, "--space cannot change a tune that is resumed"},
		{"resume with slurm", func(o *Options) { o.Resume, o.Given = "x", given("slurm") }, "--slurm cannot change a tune that is resumed"},
		{"resume of no tune", func(o *Options) { o.Resume, o.Given = "x", given() }, `no tune "x" in `},
		{"resume of no directory", func(o *Options) { o.Resume, o.Given = "no/such", given() }, "tune no/such: no such directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := openOptions(t, t.TempDir())
			tt.edit(&o)
			_, _, _, err := Open(o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one with %q", err, tt.want)
			}
			if !inputerr.Is(err) {
				t.Errorf("err %v is not an input error", err)
			}
		})
	}
}

// TestOpenResume resumes a saved tune: --budget may be given again, the
// verdict and status of the last session are cleared, and --dir of a
// saved tune is refused.
func TestOpenResume(t *testing.T) {
	dir := t.TempDir()
	o := openOptions(t, dir)
	if _, err := FindDir(o.TunesDir, ""); err == nil || !strings.Contains(err.Error(), "no tunes in") {
		t.Errorf("newest of none: err %v", err)
	}
	rec, _, _, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	rec.Status, rec.Note = TuneInterrupted, "stopped"
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	// The newest tune is what `tune show` finds without an argument.
	if d, err := FindDir(o.TunesDir, ""); err != nil || d != rec.Dir() {
		t.Errorf("newest: %s, %v; want %s", d, err, rec.Dir())
	}
	// `tune show latest` (its help's example) names the newest, as
	// `bench show latest` does.
	if d, err := FindDir(o.TunesDir, "latest"); err != nil || d != rec.Dir() {
		t.Errorf("latest: %s, %v; want %s", d, err, rec.Dir())
	}
	for _, ref := range []string{rec.ID, rec.Dir()} {
		r := Options{TunesDir: o.TunesDir, Resume: ref, Budget: time.Hour, Given: given("budget")}
		got, _, _, err := Open(r)
		if err != nil {
			t.Fatalf("resume %q: %v", ref, err)
		}
		if got.ID != rec.ID || got.Status != TuneRunning || got.Note != "" || got.Space.Budget != time.Hour {
			t.Errorf("resume %q: id %s status %s note %q budget %v", ref, got.ID, got.Status, got.Note, got.Space.Budget)
		}
	}
	o.Dir = rec.Dir()
	if _, _, _, err := Open(o); err == nil || !strings.Contains(err.Error(), "holds a tune already") {
		t.Errorf("--dir of a saved tune: err %v", err)
	}
	// --local, --stage: only for a tune --slurm planned, and --stage
	// only for a task (--shard).
	local := Options{TunesDir: o.TunesDir, Resume: rec.ID, Local: true, Given: given("local")}
	if _, _, _, err := Open(local); err == nil || !inputerr.Is(err) || !strings.Contains(err.Error(), "--local: tune "+rec.Dir()+" was not planned as a job array") {
		t.Errorf("--local of a tune without --slurm: err %v", err)
	}
	rec.Array = &Array{Tasks: 2}
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _, _, err := Open(local); err != nil || got.Array == nil {
		t.Errorf("--local of a tune --slurm planned: %v", err)
	}
	for _, r := range []Options{
		{TunesDir: o.TunesDir, Resume: rec.ID, Stage: 1, Given: given("stage")},
		{TunesDir: o.TunesDir, Resume: rec.ID, Local: true, Shard: "0/2", Given: given("local", "shard")},
	} {
		if _, _, _, err := Open(r); err == nil || !inputerr.Is(err) {
			t.Errorf("%+v: err %v, want an input error", r, err)
		}
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		k, n    int
		wantErr bool
	}{
		{"", 0, 0, false},
		{"0/1", 0, 1, false},
		{"2/8", 2, 8, false},
		{"8/8", 0, 0, true},
		{"-1/8", 0, 0, true},
		{"1/0", 0, 0, true},
		{"02/8", 0, 0, true},
		{"2/8x", 0, 0, true},
		{"two", 0, 0, true},
	}
	for _, tt := range tests {
		k, n, err := ParseShard(tt.in)
		if (err != nil) != tt.wantErr || k != tt.k || n != tt.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, error %v", tt.in, k, n, err, tt.k, tt.n, tt.wantErr)
		}
	}
}

// given reports the flags named as given.
func given(flags ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(flags, f) }
}
