package tune

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Options are what a tune command asks for: a new tune of a base
// profile, or --resume of one (optionally a share of a job array).
type Options struct {
	// TunesDir is where tunes live by default (a directory per ID).
	TunesDir string
	// Resume names the tune to go on with: a directory or an ID under
	// TunesDir; "" starts a new tune.
	Resume string
	// Profile is the base profile's reference (--profile, else
	// SGLAUNCH_PROFILE).
	Profile string
	// LoadBase loads the base profile that Profile names.
	LoadBase func(ref string) (Base, error)
	// SpaceFile is --space; "" takes the base profile's tune: section.
	SpaceFile string
	Strategy  string
	Budget    time.Duration
	Rounds    int
	// Dir is --dir: the new tune's directory (default TunesDir/ID).
	Dir string
	// Slurm plans the tune for a job array: its directory is absolute and
	// its records are its own (Record.Shared).
	Slurm bool
	// Shard is --shard K/N, a task of a job array; Stage is --stage, the
	// array's stage.
	Shard string
	Stage int
	// Local is --local: a resumed tune --slurm measures the points left
	// here instead of printing the next stage's job array.
	Local bool
	// Given reports whether the command line gave the flag named.
	Given func(flag string) bool
	// Argv is the command line, redacted, for the record.
	Argv []string
}

// Base is what a tune needs of its base profile.
type Base struct {
	// Ref is the reference the record keeps (absolute when it is a path).
	Ref  string
	Name string
	// Space is the profile's tune: section, written in SpaceFile; nil
	// when the profile has none.
	Space     ast.Node
	SpaceFile string
}

// Open starts the tune the options ask for, or loads the one they
// resume; with a shard it returns that share of the points (Shards > 0).
func Open(o Options) (rec *Record, shard, shards int, err error) {
	if rec, err = o.record(); err != nil {
		return nil, 0, 0, err
	}
	if shard, shards, err = ParseShard(o.Shard); err != nil {
		return nil, 0, 0, err
	}
	if o.Local && rec.Array == nil {
		return nil, 0, 0, inputerr.Errorf("--local: tune %s was not planned as a job array (tune --slurm); a plain --resume measures here already", rec.Dir())
	}
	if shards == 0 {
		if o.Given("stage") {
			return nil, 0, 0, inputerr.Errorf("--stage goes with --shard: a task of a tune's job array measures a share of its stage")
		}
		return rec, 0, 0, nil
	}
	if o.Local {
		return nil, 0, 0, inputerr.Errorf("--local goes with --resume of a tune --slurm planned, not with --shard")
	}
	if rec, err = LoadShard(rec.Dir(), o.Stage, shard); err != nil {
		return nil, 0, 0, err
	}
	return rec, shard, shards, nil
}

// record starts a tune from the options, or loads the one Resume names.
func (o Options) record() (*Record, error) {
	if o.Resume != "" {
		return o.resume()
	}
	ref := o.Profile
	if ref == "" {
		return nil, inputerr.Errorf("no profile given; use --profile BASE (or set SGLAUNCH_PROFILE)")
	}
	base, err := o.LoadBase(ref)
	if err != nil {
		return nil, err
	}
	var space *Space
	switch {
	case o.Given("space"):
		space, err = LoadSpace(o.SpaceFile)
	case base.Space != nil:
		space, err = DecodeSpace(base.SpaceFile, base.Space)
	default:
		return nil, inputerr.Errorf("no search space: profile %s has no tune: section; give --space FILE (parameters:, objective:), or --resume DIR|ID", base.Name)
	}
	if err != nil {
		return nil, err
	}
	if err := o.override(space); err != nil {
		return nil, err
	}
	now := time.Now()
	dir := o.Dir
	if dir == "" {
		dir = filepath.Join(o.TunesDir, NewID(now))
	}
	if _, err := os.Stat(filepath.Join(dir, RecordFile)); err == nil {
		return nil, inputerr.Errorf("--dir %s holds a tune already; resume it with --resume %s, or pick another directory", dir, dir)
	}
	for _, f := range []string{"shard", "stage", "local"} {
		if o.Given(f) {
			return nil, inputerr.Errorf("--%s goes with --resume DIR of a tune --slurm planned", f)
		}
	}
	if o.Slurm {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	rec := NewRecord(dir, now)
	rec.Shared = o.Slurm
	rec.Base, rec.BaseName, rec.Space, rec.Strategy, rec.Argv = base.Ref, base.Name, *space, space.Strategy, o.Argv
	return rec, nil
}

// resume loads the tune Resume names, to go on with it.
func (o Options) resume() (*Record, error) {
	for _, f := range []string{"space", "profile", "strategy", "rounds", "dir", "slurm"} {
		if o.Given(f) {
			return nil, inputerr.Errorf("--%s cannot change a tune that is resumed; --resume takes the tune's own (only --budget may be given again)", f)
		}
	}
	dir, err := FindDir(o.TunesDir, o.Resume)
	if err != nil {
		return nil, err
	}
	rec, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if o.Given("budget") {
		rec.Space.Budget = o.Budget
	}
	rec.Status, rec.Note, rec.Verdict = TuneRunning, "", nil
	return rec, nil
}

// override applies --strategy, --budget and --rounds to the space.
func (o Options) override(space *Space) error {
	if o.Given("strategy") {
		st := o.Strategy
		if !slices.Contains(Strategies, st) {
			return inputerr.Errorf("--strategy %q: want one of %s", st, strings.Join(Strategies, ", "))
		}
		if st == StrategyRandom && space.Count == 0 {
			return inputerr.Errorf("--strategy random needs count: in the space (how many points to draw)")
		}
		space.Strategy = st
	}
	if o.Given("budget") {
		if space.Budget = o.Budget; space.Budget <= 0 {
			return inputerr.Errorf("--budget %s: want a positive duration like 90m", o.Budget)
		}
	}
	if o.Given("rounds") {
		if space.Rounds = o.Rounds; space.Rounds < 1 {
			return inputerr.Errorf("--rounds %d: want 1 or more", o.Rounds)
		}
	}
	return nil
}

// FindDir finds a tune under tunesDir by directory or ID; "" is the
// newest.
func FindDir(tunesDir, ref string) (string, error) {
	if ref == "latest" {
		ref = "" // the newest, as bench's record commands read it
	}
	if ref != "" {
		if fi, err := os.Stat(ref); err == nil && fi.IsDir() {
			return ref, nil
		}
		if strings.ContainsRune(ref, os.PathSeparator) {
			return "", inputerr.Errorf("tune %s: no such directory", ref)
		}
		dir := filepath.Join(tunesDir, ref)
		if _, err := os.Stat(filepath.Join(dir, RecordFile)); err != nil {
			return "", inputerr.Errorf("no tune %q in %s; `sglaunch tune show latest` shows the newest", ref, tunesDir)
		}
		return dir, nil
	}
	names, _ := filepath.Glob(filepath.Join(tunesDir, "*", RecordFile))
	if len(names) == 0 {
		return "", inputerr.Errorf("no tunes in %s yet; run sglaunch tune --profile BASE --space FILE", tunesDir)
	}
	slices.Sort(names)
	return filepath.Dir(names[len(names)-1]), nil
}

// ParseShard reads --shard K/N; "" is no shard (0, 0).
func ParseShard(v string) (int, int, error) {
	if v == "" {
		return 0, 0, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(v, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n || fmt.Sprintf("%d/%d", k, n) != v {
		return 0, 0, inputerr.Errorf("--shard %q: want K/N with 0 <= K < N, like 2/8", v)
	}
	return k, n, nil
}
