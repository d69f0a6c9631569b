package tune

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statefile"
)

// RecordSchema is the version of the tune record format.
const RecordSchema = 1

// RecordFile is the tune record's name in its directory.
const RecordFile = "tune.json"

// Statuses of a tune.
const (
	TuneRunning     = "running"     // in progress, or sglaunch was killed: --resume goes on
	TuneDone        = "done"        // every point ran
	TuneBudget      = "budget"      // stopped when the budget could not hold the next point
	TuneInterrupted = "interrupted" // a signal stopped it: --resume goes on
)

// Statuses of a point.
const (
	PointPending = "pending" // not run yet
	PointRunning = "running" // being measured (or sglaunch was killed while it was)
	PointOK      = "ok"      // measured: every round it got
	PointReused  = "reused"  // measured before: its record was found in the store
	PointFailed  = "failed"  // the server crashed or the workload failed
	PointNotRun  = "not run" // the budget ran out first
)

// Record is one tune, as stored in its directory: the space, every point
// with its settings, metrics and status, and the verdict.
type Record struct {
	Schema int    `json:"schema"`
	ID     string `json:"id"`
	Status string `json:"status"`
	// Base is the profile as given (a name or a path); BaseName its name.
	Base     string    `json:"base"`
	BaseName string    `json:"base_name"`
	Space    Space     `json:"space"`
	Strategy string    `json:"strategy"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	Argv     []string  `json:"argv,omitempty"`
	// Sessions counts the sglaunch runs that worked on the tune (1 + resumes).
	Sessions int      `json:"sessions"`
	Points   []*Point `json:"points"`
	// Note says why the search stopped early, or what else a reader must know.
	Note    string   `json:"note,omitempty"`
	Verdict *Verdict `json:"verdict,omitempty"`
	Timing  Timing   `json:"timing"`
	// Shared is true for a tune run as a Slurm job array: its points'
	// bench records live in its directory (RecordsDir), which every task
	// of the array shares.
	Shared bool `json:"shared,omitempty"`
	// Array is how tune --slurm runs it: the sbatch settings and the
	// stage (job array) in progress.
	Array *Array `json:"array,omitempty"`
	// HalvingStage is the last stage halving began (0: every point's
	// first round).
	HalvingStage int `json:"halving_stage,omitempty"`

	dir string
	// file is what Save writes: tune.json, or a task's shard file.
	file string
}

// Timing is where the tune's time went.
type Timing struct {
	// WallSeconds is the sessions' wall time; PointSeconds the points'
	// own (their servers' loads and stops, their workloads);
	// OverheadSeconds the rest: sglaunch's planning, launching, saving and
	// waiting, over every point (PerPointSeconds on average).
	WallSeconds     float64 `json:"wall_s"`
	PointSeconds    float64 `json:"points_s"`
	OverheadSeconds float64 `json:"overhead_s"`
	// TaskSeconds is the wall time of a job array's tasks, all together
	// (they count towards the overhead, not towards WallSeconds).
	TaskSeconds     float64 `json:"tasks_s,omitempty"`
	PerPointSeconds float64 `json:"overhead_per_point_s"`
	Launches        int     `json:"launches"`
	Rounds          int     `json:"rounds"`
}

// Point is one setting of the space.
type Point struct {
	// N numbers the point; 0 is the baseline (the base profile as is).
	N int `json:"n"`
	// Sets are its --set assignments over the base profile.
	Sets        []string `json:"sets"`
	Fingerprint string   `json:"fingerprint"`
	Status      string   `json:"status"`
	// Reason says why it failed or was cut short; Phase is the load's
	// phase a crash came in; Tail the server's last lines.
	Reason string   `json:"reason,omitempty"`
	Phase  string   `json:"phase,omitempty"`
	Tail   []string `json:"tail,omitempty"`
	// Records are the bench records that measured it (reused or written).
	Records []string `json:"records,omitempty"`
	// Rounds hold every round's metrics, across its records.
	Rounds []map[string]float64 `json:"rounds,omitempty"`
	// Raced says why racing or halving gave it fewer rounds.
	Raced string `json:"raced,omitempty"`
	// Launches counts the servers started for it.
	Launches int `json:"launches"`
	// LoadSeconds, WorkloadSeconds and StopSeconds are its servers' load
	// times (to ready, or to the crash), its workloads' run time and its
	// servers' stop times; WallSeconds is all the time it took, sglaunch's
	// own included.
	LoadSeconds     float64 `json:"load_s,omitempty"`
	WorkloadSeconds float64 `json:"workload_s,omitempty"`
	StopSeconds     float64 `json:"stop_s,omitempty"`
	WallSeconds     float64 `json:"wall_s,omitempty"`
	// Objective is its objective's mean with a 95 % interval.
	Objective *Estimate `json:"objective,omitempty"`
	// Metrics are the other metrics' means.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Violates lists the constraints its means break.
	Violates []string `json:"violates,omitempty"`
	// VsBaseline is its objective against the baseline's.
	VsBaseline *Delta `json:"vs_baseline,omitempty"`
}

// Estimate is a mean and its 95 % interval (Student's t), from N rounds.
type Estimate struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Delta is a point's objective minus the baseline's, in percent of the
// baseline, with the 95 % interval of bench compare (Welch's t), and the
// verdict: better, worse, within noise, or too few rounds to judge.
type Delta struct {
	Pct float64 `json:"pct"`
	// LoPct and HiPct bound the interval; HasInterval is false when a
	// side has fewer than two rounds.
	LoPct       float64 `json:"lo_pct"`
	HiPct       float64 `json:"hi_pct"`
	HasInterval bool    `json:"has_interval"`
	Judged      bool    `json:"judged"`
	Verdict     string  `json:"verdict"`
}

// Verdict is the tune's answer.
type Verdict struct {
	// Winner is the winning point's N; -1 when none won beyond noise.
	Winner int    `json:"winner"`
	Text   string `json:"text"`
	// Profile is the winning profile written beside the record.
	Profile string `json:"profile,omitempty"`
}

// Label names a point in one line: baseline, or its settings.
func (p *Point) Label() string {
	if p.N == 0 {
		return "baseline"
	}
	s := ""
	for i, a := range p.Sets {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}

// Done reports whether the point has its result.
func (p *Point) Done() bool {
	return p.Status == PointOK || p.Status == PointReused || p.Status == PointFailed
}

// NewRecord starts a tune record in dir.
func NewRecord(dir string, now time.Time) *Record {
	return &Record{Schema: RecordSchema, ID: filepath.Base(dir), Status: TuneRunning, Started: now.UTC(), dir: dir}
}

// NewID returns a tune id: the start time and 4 random hex digits.
func NewID(now time.Time) string {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Dir is the record's directory.
func (r *Record) Dir() string { return r.dir }

// Path is the record's file.
func (r *Record) Path() string {
	if r.file != "" {
		return r.file
	}
	return filepath.Join(r.dir, RecordFile)
}

// RecordsDir is where a shared tune's bench records live.
func (r *Record) RecordsDir() string { return filepath.Join(r.dir, "records") }

// shardPath is where task k of a stage's job array keeps its share.
func shardPath(dir string, stage, k int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%d-%d.json", stage, k))
}

// maxRecordBytes bounds a tune record (or a task's share) that is read:
// thousands of points with their rounds and tails are a few MiB.
const maxRecordBytes = 64 << 20

// Save writes the record as a state file (statefile.Write): atomically,
// so a kill -9 leaves the last one whole.
func (r *Record) Save(now time.Time) error {
	r.Updated = now.UTC()
	if err := statefile.Write(r.Path(), r); err != nil {
		return fmt.Errorf("save tune record: %w", err)
	}
	return nil
}

// Load reads the tune record in dir.
func Load(dir string) (*Record, error) { return load(dir, filepath.Join(dir, RecordFile)) }

// LoadShard reads the share of task k of a stage's job array: its own
// file when it has begun (a requeued task goes on), else the tune's
// record; Save then writes the task's file.
func LoadShard(dir string, stage, k int) (*Record, error) {
	path := shardPath(dir, stage, k)
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(dir, RecordFile)
	}
	r, err := load(dir, path)
	if err != nil {
		return nil, err
	}
	if r.Array == nil {
		return nil, inputerr.Errorf("--shard: tune %s was not planned as a job array (tune --slurm)", dir)
	}
	if r.Array.Stage.N != stage {
		return nil, inputerr.Errorf("--stage %d: tune %s is at stage %d; this task belongs to an array that --resume has already collected", stage, dir, r.Array.Stage.N)
	}
	r.file = shardPath(dir, stage, k)
	return r, nil
}

// Collect takes into r the points that the tasks of its job arrays
// finished (their shard files, of every stage) further than r has them:
// a result it lacks, or more launches (halving's later stages); it says
// how many.
func (r *Record) Collect() (int, error) {
	files, err := filepath.Glob(filepath.Join(r.dir, "shard-*.json"))
	if err != nil {
		return 0, err
	}
	n := 0
	r.Timing.TaskSeconds = 0
	for _, f := range files {
		sh, err := load(r.dir, f)
		if err != nil {
			return n, err
		}
		r.Timing.TaskSeconds += sh.Timing.WallSeconds
		for _, p := range sh.Points {
			if p.N >= len(r.Points) || !p.Done() || r.Points[p.N].Fingerprint != p.Fingerprint {
				continue
			}
			if q := r.Points[p.N]; q.Done() && p.Launches <= q.Launches {
				continue
			}
			r.Points[p.N] = p
			n++
		}
	}
	return n, nil
}

// load reads a tune record (or a task's share) at path through
// statefile.Read, bounded by maxRecordBytes. Every failure is an input
// error naming the file: missing, too large, or not a whole record (a
// truncated or foreign file).
func load(dir, path string) (*Record, error) {
	r := &Record{}
	if err := statefile.Read(path, maxRecordBytes, r); err != nil {
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, inputerr.Errorf("%s: no tune record there (%s)", dir, RecordFile)
		case inputerr.Is(err):
			return nil, err
		}
		return nil, inputerr.Errorf("not a tune record (truncated, or not written by sglaunch tune): %w", err)
	}
	if r.Schema != RecordSchema {
		return nil, inputerr.Errorf("%s: tune record schema %d; this sglaunch reads %d", path, r.Schema, RecordSchema)
	}
	r.dir = dir
	return r, nil
}

// Text is the delta as show and report print it.
func (d *Delta) Text() string {
	if !d.HasInterval {
		return fmt.Sprintf("%+.1f%% (no interval) %s", d.Pct, d.Verdict)
	}
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] %s", d.Pct, d.LoPct, d.HiPct, d.Verdict)
}
