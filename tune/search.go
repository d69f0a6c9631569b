package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/plan"
)

// timeNow is the clock; tests replace it.
var timeNow = time.Now

// Config is what a search needs from its caller.
type Config struct {
	// Resolve returns the plan of the base profile with sets applied, as
	// `sglaunch bench --profile BASE --set ...` would run it.
	Resolve func(sets []string) (*plan.Plan, error)
	// Workload is the objective's workload, resolved.
	Workload workload.Workload
	Store    *bench.Store
	// Launch starts a plan's server and returns once it is ready.
	Launch bench.LaunchFunc
	// NewBenchRecord starts a bench record (argv, versions, host facts).
	NewBenchRecord func() *bench.Record
	// Probes remembers the interpreter probes (the SGLang version each
	// record asks for), so that points with the same interpreter and
	// environment ask once.
	Probes *hostprobe.Memo
	// Progress receives the progress lines.
	Progress io.Writer
	Log      *slog.Logger
	// Signals stop the search: the first ends the point in progress (its
	// server stops), the record is saved and Search returns Interrupted;
	// a second cuts the server's grace period short.
	Signals <-chan os.Signal
	// Shard of Shards, when Shards > 0, is a task of a job array: it
	// measures the items of the record's stage whose index is Shard
	// modulo Shards, into its own file (LoadShard), and judges nothing.
	Shard, Shards int
}

// Interrupted is the error Search returns when a signal stopped it.
type Interrupted struct{ Signal syscall.Signal }

func (e *Interrupted) Error() string {
	return "tune interrupted by " + e.Signal.String() + "; `sglaunch tune --resume` goes on from the finished points"
}

// tuner is one session of a search.
type tuner struct {
	cfg     Config
	rec     *Record
	plans   map[int]*plan.Plan
	started time.Time
	prog    *progress

	mu      sync.Mutex
	signal  syscall.Signal
	current chan os.Signal // the bench run in progress, if any
}

// Search runs the tune of rec (new, or loaded to resume) to its end, the
// budget, or a signal, saving the record after every change. It returns
// Interrupted after a signal; a point's failure is a result, not an error.
func Search(ctx context.Context, cfg Config, rec *Record) error {
	t := &tuner{cfg: cfg, rec: rec, plans: map[int]*plan.Plan{}, started: timeNow()}
	t.prog = &progress{w: cfg.Progress, rec: rec, eta: t.eta}
	rec.Sessions++
	stopSignals := t.watchSignals()
	defer stopSignals()
	if err := t.planPoints(); err != nil {
		return err
	}
	t.reuse()
	if err := t.save(); err != nil {
		return err
	}
	var err error
	switch {
	case cfg.Shards > 0:
		err = t.stageShare(ctx)
	case rec.Strategy == StrategyHalving:
		err = t.halving(ctx)
	default:
		err = t.sequential(ctx)
	}
	if errors.Is(err, errBudget) {
		err = nil
	}
	t.finishTiming()
	if err != nil {
		var intr *Interrupted
		if errors.As(err, &intr) {
			rec.Status = TuneInterrupted
			rec.Note = fmt.Sprintf("interrupted by %s; `sglaunch tune --resume %s` goes on", intr.Signal, rec.ID)
		}
		_ = t.save()
		return err
	}
	if rec.Status == TuneRunning {
		rec.Status = TuneDone
	}
	if cfg.Shards == 0 {
		t.judge()
	}
	return t.save()
}

// watchSignals records the first signal and forwards every signal to the
// bench run in progress.
func (t *tuner) watchSignals() func() {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case sig := <-t.cfg.Signals:
				t.mu.Lock()
				if s, ok := sig.(syscall.Signal); ok && t.signal == 0 {
					t.signal = s
				}
				if t.current != nil {
					select {
					case t.current <- sig:
					default:
					}
				}
				t.mu.Unlock()
			}
		}
	}()
	return func() { close(done) }
}

func (t *tuner) interrupted() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.signal == 0 {
		return nil
	}
	return &Interrupted{Signal: t.signal}
}

// planPoints lists the points of a new tune (the baseline first, then the
// strategy's), resolves every point's plan and drops a point whose plan
// is another's; on a resume it resolves the plans again and says when the
// base profile changed under a finished point.
func (t *tuner) planPoints() error {
	rec := t.rec
	if len(rec.Points) == 0 {
		sets := rec.Space.Grid()
		if rec.Strategy == StrategyRandom {
			sets = rec.Space.Sample(rec.Space.Count, rec.Space.Seed)
		}
		seen := map[string]int{}
		for _, s := range append([][]string{nil}, sets...) {
			p, err := t.cfg.Resolve(s)
			if err != nil {
				if len(s) == 0 {
					return err
				}
				return fmt.Errorf("point %s: %w", strings.Join(s, " "), err)
			}
			if n, dup := seen[p.Fingerprint]; dup {
				t.logf("point %s runs the same plan as point %d: measured once", strings.Join(s, " "), n)
				continue
			}
			pt := &Point{N: len(rec.Points), Sets: s, Fingerprint: p.Fingerprint, Status: PointPending}
			seen[p.Fingerprint] = pt.N
			t.plans[pt.N] = p
			rec.Points = append(rec.Points, pt)
		}
		return nil
	}
	for _, pt := range rec.Points {
		p, err := t.cfg.Resolve(pt.Sets)
		if err != nil {
			return fmt.Errorf("point %d (%s): %w", pt.N, pt.Label(), err)
		}
		t.plans[pt.N] = p
		switch {
		case pt.Status == PointRunning && len(pt.Rounds) > 0:
			pt.Status = PointOK // killed while measuring more rounds: it keeps its earlier ones
		case pt.Status == PointRunning || pt.Status == PointNotRun:
			pt.Status = PointPending
		case pt.Done() && p.Fingerprint != pt.Fingerprint:
			t.logf("point %d (%s): the base profile's plan changed since it was measured; its result is kept, from the plan it ran", pt.N, pt.Label())
		}
		if pt.Status == PointPending {
			pt.Fingerprint = p.Fingerprint
		}
	}
	return nil
}

// sequential measures the points in order, each with one launch: every
// round (grid, random), or rounds until it is beyond noise worse than the
// best so far (adaptive).
func (t *tuner) sequential(ctx context.Context) error {
	for _, pt := range t.rec.Points {
		if pt.Status != PointPending {
			continue
		}
		if err := t.measureItem(ctx, StageItem{Point: pt.N, Rounds: t.fullRounds()}); err != nil {
			return err
		}
	}
	return nil
}

// fullRounds is how many rounds a point gets in full.
func (t *tuner) fullRounds() int {
	if t.rec.Space.Rounds > 0 {
		return t.rec.Space.Rounds
	}
	return t.cfg.Workload.RoundCount()
}

// maybeRace picks the strategy of a tune that named none, once a point
// has been measured: adaptive when the rest of the grid with every round
// would not fit in the budget left, else grid.
func (t *tuner) maybeRace() {
	if t.rec.Strategy != "" {
		return
	}
	est, ok := t.estimate(t.fullRounds())
	if !ok {
		return
	}
	left := 0
	for _, p := range t.rec.Points {
		if p.Status == PointPending {
			left++
		}
	}
	need := time.Duration(left) * est
	if b := t.rec.Space.Budget; b > 0 && t.elapsed()+need > b {
		t.rec.Strategy = StrategyAdaptive
		t.logf("the %d points left would take about %s with every round, more than the budget left (%s): racing them (adaptive)", left, roundDur(need), roundDur(b-t.elapsed()))
		return
	}
	t.rec.Strategy = StrategyGrid
}

// elapsed is the time this session has run.
func (t *tuner) elapsed() time.Duration { return timeNow().Sub(t.started) }

// outOfBudget stops the search when the budget cannot hold the next
// point: the points not run are listed and marked.
func (t *tuner) outOfBudget(next *Point, rounds int) bool {
	b := t.rec.Space.Budget
	if b == 0 {
		return false
	}
	est, ok := t.estimate(rounds)
	if !ok || t.elapsed()+est <= b {
		return false
	}
	var left []string
	for _, p := range t.rec.Points {
		if p.Status == PointPending {
			p.Status = PointNotRun
			left = append(left, fmt.Sprintf("%d (%s)", p.N, p.Label()))
		}
	}
	t.rec.Status = TuneBudget
	t.rec.Note = fmt.Sprintf("stopped at %s of the %s budget: the next point needs about %s; not run: %s", roundDur(t.elapsed()), roundDur(b), roundDur(est), strings.Join(left, ", "))
	t.logf("%s", t.rec.Note)
	return true
}

// estimate is how long a point with rounds takes, from the points this
// tune launched: their mean time besides the workload, plus rounds times
// their mean round; ok is false before any.
func (t *tuner) estimate(rounds int) (time.Duration, bool) {
	var fixed, perRound float64
	n, nr := 0, 0
	for _, p := range t.rec.Points {
		if p.Launches == 0 || p.WallSeconds == 0 {
			continue
		}
		fixed += p.WallSeconds - p.WorkloadSeconds
		n += p.Launches
		if len(p.Rounds) > 0 && p.Status == PointOK {
			perRound += p.WorkloadSeconds
			nr += len(p.Rounds)
		}
	}
	if n == 0 {
		return 0, false
	}
	est := fixed / float64(n)
	if nr > 0 {
		est += float64(rounds) * perRound / float64(nr)
	}
	return time.Duration(est * float64(time.Second)), true
}

func (t *tuner) save() error { return t.rec.Save(timeNow()) }

func (t *tuner) logf(format string, args ...any) {
	if t.cfg.Log != nil {
		t.cfg.Log.Info(fmt.Sprintf(format, args...))
	}
}

// finishTiming adds this session's wall time and totals the points'.
func (t *tuner) finishTiming() {
	tm := &t.rec.Timing
	tm.WallSeconds += t.elapsed().Seconds()
	tm.PointSeconds, tm.Launches, tm.Rounds = 0, 0, 0
	for _, p := range t.rec.Points {
		tm.PointSeconds += p.LoadSeconds + p.WorkloadSeconds + p.StopSeconds
		tm.Launches += p.Launches
		if p.Status != PointReused {
			tm.Rounds += len(p.Rounds)
		}
	}
	tm.OverheadSeconds = tm.WallSeconds + tm.TaskSeconds - tm.PointSeconds
	if tm.Launches > 0 {
		tm.PerPointSeconds = tm.OverheadSeconds / float64(tm.Launches)
	}
}

// roundDur shows a duration to the second (to 0.1 s under a minute).
func roundDur(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// pending lists the points not yet done, for a listing.
func pending(points []*Point) []*Point {
	return slices.DeleteFunc(slices.Clone(points), func(p *Point) bool { return p.Done() })
}

// eta is the time the pending points need at full rounds (racing and
// halving take less).
func (t *tuner) eta() (string, bool) {
	est, ok := t.estimate(t.fullRounds())
	if !ok {
		return "", false
	}
	return roundDur(time.Duration(len(pending(t.rec.Points))) * est), true
}
