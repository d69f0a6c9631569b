package tune

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/plan"
)

// tailLines is how many of a crashed server's last lines a point keeps.
const tailLines = 12

// measure launches the point's server once and runs rounds rounds of the
// objective's workload on it, into a bench record of its own. With race,
// the rounds stop once the point is beyond noise worse than the best
// point so far. A crash or a failed workload marks the point failed; a
// signal puts it back as it was, pending or with its earlier rounds (its
// partial record is kept, marked interrupted), and returns Interrupted.
func (t *tuner) measure(ctx context.Context, pt *Point, rounds int, race bool) error {
	began := timeNow()
	pl := t.plans[pt.N]
	br := t.cfg.NewBenchRecord()
	tracker := health.NewTracker(began)
	stopPhases := t.prog.follow(pt, tracker)
	// The load (to ready, or to the crash) and the stop are the server's
	// own time, measured here; the rest of the point's wall time beyond
	// its workload is sglaunch's.
	var loadTime, stopTime time.Duration
	launch := func(ctx context.Context, p *plan.Plan, out io.Writer) (bench.Server, error) {
		start := timeNow()
		srv, err := t.cfg.Launch(ctx, p, io.MultiWriter(out, observer{tracker}))
		loadTime = timeNow().Sub(start)
		if err != nil {
			return nil, err
		}
		return &timedServer{Server: srv, stopped: &stopTime}, nil
	}
	wl := t.cfg.Workload
	wl.Rounds = rounds
	var rivals []*Point
	if race {
		rivals = t.rivals(pt)
	}
	spec := bench.RunSpec{
		Plan: pl, Workloads: []workload.Workload{wl}, Store: t.cfg.Store, Record: br,
		Launch: launch, Progress: io.Discard, Log: t.cfg.Log, Probes: t.cfg.Probes,
		AfterRound: func(_ string, l bench.LevelRecord) bool {
			t.prog.round(pt, len(l.Rounds), rounds)
			return t.keepRacing(pt, rivals, l, rounds)
		},
	}
	sigs := make(chan os.Signal, 4)
	t.mu.Lock()
	t.current = sigs
	t.mu.Unlock()
	prevStatus := PointPending
	if len(pt.Rounds) > 0 {
		prevStatus = PointOK // a contender measured before, for more rounds
	}
	pt.Status, pt.Raced = PointRunning, ""
	pt.Records = append(pt.Records, br.ID)
	t.prog.start(pt)
	if err := t.save(); err != nil {
		return err
	}
	before := len(pt.Rounds)
	_, runErr := bench.Run(ctx, spec, sigs)
	t.mu.Lock()
	t.current = nil
	t.mu.Unlock()
	stopPhases()

	pt.Launches++
	pt.LoadSeconds += loadTime.Seconds()
	pt.StopSeconds += stopTime.Seconds()
	var ierr *bench.Interrupted
	if errors.As(runErr, &ierr) || t.interrupted() != nil {
		pt.Rounds = pt.Rounds[:before]
		pt.Status = prevStatus
		pt.WallSeconds += timeNow().Sub(began).Seconds()
		if err := t.interrupted(); err != nil {
			return err
		}
		return &Interrupted{Signal: ierr.Signal}
	}
	pt.Rounds = append(pt.Rounds, roundsOf(br, wl.Name)...)
	for _, res := range br.Results {
		if !res.Started.IsZero() && !res.Ended.IsZero() {
			pt.WorkloadSeconds += res.Ended.Sub(res.Started).Seconds()
		}
	}
	pt.Status, pt.Reason, pt.Phase, pt.Tail = PointOK, "", "", nil
	if runErr != nil {
		t.fail(pt, br, runErr, tracker)
	}
	t.summarize(pt)
	pt.WallSeconds += timeNow().Sub(began).Seconds()
	t.prog.end(pt)
	return t.save()
}

// fail records why the point failed: the first line of the error, the
// load's phase when the server died before it was ready, the tail.
func (t *tuner) fail(pt *Point, br *bench.Record, err error, tracker *health.Tracker) {
	pt.Status = PointFailed
	msg := err.Error()
	head, rest, _ := strings.Cut(msg, "\n")
	pt.Reason = strings.TrimPrefix(head, "launch: ")
	if br.Server == nil || br.Server.Load.ReadyAt.IsZero() {
		pt.Phase = "before any phase of the load"
		if ph, ok := tracker.Last(); ok {
			pt.Phase = ph.Name
		}
		pt.Reason = "crashed during the load (" + pt.Phase + "): " + pt.Reason
	} else {
		pt.Phase = "workload"
	}
	if _, tail, ok := strings.Cut(rest, "lines of server output:\n"); ok {
		var lines []string
		for _, l := range strings.Split(tail, "\n") {
			lines = append(lines, strings.TrimPrefix(l, "  "))
		}
		pt.Tail = lines[max(0, len(lines)-tailLines):]
	}
	pt.Rounds = nil
}

// keepRacing says whether pt's rounds go on: false once its values so
// far are beyond noise worse than some point measured before it (the
// interval of the difference excludes 0 on the worse side). Any point,
// not only the best by mean: a best whose rounds are noisy would race
// nothing out.
func (t *tuner) keepRacing(pt *Point, rivals []*Point, l bench.LevelRecord, rounds int) bool {
	o := t.rec.Space.Objective
	vals := bench.RoundValues(l, o.Metric)
	for _, q := range rivals {
		_, lo, hi, ok := bench.Interval(column(q.Rounds, o.Metric), vals)
		if !ok || !((o.Direction > 0 && hi < 0) || (o.Direction < 0 && lo > 0)) {
			continue
		}
		pt.Raced = fmt.Sprintf("stopped after %d of %d rounds: beyond noise worse than point %d (%s)", len(vals), rounds, q.N, pctInterval(lo, hi, q.Objective.Mean))
		return false
	}
	return true
}

// rivals are the points measured so far (pt aside) that can race it
// out: feasible, with at least two rounds, best mean first.
func (t *tuner) rivals(except *Point) []*Point {
	var out []*Point
	for _, p := range t.ranked() {
		if p != except && len(p.Rounds) >= 2 {
			out = append(out, p)
		}
	}
	return out
}

func usable(p *Point) bool {
	return (p.Status == PointOK || p.Status == PointReused) && p.Objective != nil
}

// roundsOf reads every round of the workload's first level in a record:
// one map of metric values per round.
func roundsOf(r *bench.Record, name string) []map[string]float64 {
	for _, res := range r.Results {
		if res.Workload.Name != name || len(res.Levels) == 0 {
			continue
		}
		l := res.Levels[0]
		var out []map[string]float64
		for _, m := range bench.LevelMetricNames() {
			for i, v := range bench.RoundValues(l, m) {
				for len(out) <= i {
					out = append(out, map[string]float64{})
				}
				out[i][m] = v
			}
		}
		return out
	}
	return nil
}

// column is one metric's values across rounds.
func column(rounds []map[string]float64, metric string) []float64 {
	var out []float64
	for _, r := range rounds {
		if v, ok := r[metric]; ok {
			out = append(out, v)
		}
	}
	return out
}

// summarize sets the point's objective estimate, metric means and
// constraint violations from its rounds.
func (t *tuner) summarize(pt *Point) {
	s := t.rec.Space
	pt.Objective, pt.Metrics, pt.Violates = nil, nil, nil
	if len(pt.Rounds) == 0 {
		if pt.Status == PointOK {
			pt.Status, pt.Reason = PointFailed, "no round of "+s.Objective.Workload+" completed"
		}
		return
	}
	vals := column(pt.Rounds, s.Objective.Metric)
	if len(vals) == 0 {
		pt.Status, pt.Reason = PointFailed, "its rounds have no "+s.Objective.Metric
		return
	}
	m, lo, hi, _ := bench.MeanInterval(vals)
	pt.Objective = &Estimate{Mean: m, Lo: lo, Hi: hi, N: len(vals)}
	pt.Metrics = map[string]float64{}
	for name := range pt.Rounds[0] {
		if v := column(pt.Rounds, name); len(v) > 0 {
			mean, _, _, _ := bench.MeanInterval(v)
			pt.Metrics[name] = mean
		}
	}
	for _, c := range s.Constraints {
		v, ok := pt.Metrics[c.Metric]
		if !ok || !c.Holds(v) {
			pt.Violates = append(pt.Violates, fmt.Sprintf("%s (%.4g)", c, v))
		}
	}
}

// pctInterval shows an interval of a difference in percent of ref.
func pctInterval(lo, hi, ref float64) string {
	if ref == 0 {
		return fmt.Sprintf("[%+.4g, %+.4g]", lo, hi)
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", lo/abs(ref)*100, hi/abs(ref)*100)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// observer feeds the server's output to the load's phase tracker.
type observer struct{ t *health.Tracker }

func (o observer) Write(b []byte) (int, error) {
	o.t.Observe(b)
	return len(b), nil
}

// timedServer measures how long the server takes to stop.
type timedServer struct {
	bench.Server
	stopped *time.Duration
}

func (s *timedServer) Stop(ctx context.Context) (fmt.Stringer, error) {
	start := timeNow()
	defer func() { *s.stopped += timeNow().Sub(start) }()
	return s.Server.Stop(ctx)
}
