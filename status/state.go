package status

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/runstate"
)

// timeNow is the clock; tests replace it.
var timeNow = time.Now

// Probe kinds, as supervise names them.
const (
	probeReadiness = "readiness"
	probeLiveness  = "liveness"
)

// Phases beyond the start-up phases of health.Tracker.
const (
	PhaseStarting  = "starting"  // launched, no start-up phase seen yet
	PhaseReady     = "ready"     // the gate passed and liveness holds
	PhaseUnhealthy = "unhealthy" // ready once, but liveness fails or is overdue
	PhaseStopping  = "stopping"  // a stop was asked for or the server is ending
	PhaseExited    = "exited"    // no process of the server is left
)

// livenessSlack is the least time a liveness answer may come late
// before /readyz turns 503: the probe itself takes time (about 1 s on
// SGLang, which runs a one-token generation).
const livenessSlack = 500 * time.Millisecond

// Info is what a launch is, known before the server starts.
type Info struct {
	Profile     string
	Mode        string
	Fingerprint string // the plan's whole fingerprint
	// SGLangVersion is what the plan's interpreter would import; "" when
	// unknown.
	SGLangVersion string
	Interpreter   string
	URL           string // the server's base URL
	SglaunchPID   int
	// LivenessInterval is health.interval (0: no liveness probes).
	LivenessInterval time.Duration
	// LastLoad is the latest earlier load of this plan (the load history).
	LastLoad *health.Load
	// Launches are this host's launches of the profile, this one
	// included; LaunchesDir, when set, is where this launch's end is
	// recorded for the next one (see CountLaunch).
	Launches    Launches
	LaunchesDir string
	// Benchmarked is the bench record this plan reproduces, or the
	// nearest; nil when not looked up.
	Benchmarked *Benchmark
	// Group places a rank of a multi-node server (nil: one node).
	Group *runstate.Group
}

// State is what a launch's supervisor has seen. It implements
// supervise.Observer; all methods are safe for concurrent use and return
// at once.
type State struct {
	info    Info
	metrics *metrics

	mu        sync.Mutex
	serverPID int
	startedAt time.Time
	tracker   *health.Tracker
	est       health.Estimate
	load      *health.Load // this launch's, once ready
	probes    map[string]*Probe
	lastOK    time.Time     // the last liveness answer, or ready
	lastTook  time.Duration // how long that answer took
	failures  int           // liveness failures in a row
	failTotal int
	stopping  string
	exit      *Exit
}

// NewState starts the state of one launch.
func NewState(info Info) *State {
	s := &State{info: info, probes: map[string]*Probe{}}
	s.metrics = newMetrics(s)
	return s
}

// Info is what the state was started with.
func (s *State) Info() Info { return s.info }

// Started implements supervise.Observer.
func (s *State) Started(pid int, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serverPID, s.startedAt = pid, at
}

// Loading implements supervise.Observer.
func (s *State) Loading(t *health.Tracker, est health.Estimate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracker, s.est = t, est
	if s.startedAt.IsZero() {
		s.startedAt = t.Start()
	}
}

// Probe implements supervise.Observer.
func (s *State) Probe(kind string, c health.Check) {
	s.metrics.probe(kind, c)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.probes[kind] = probeOf(c)
	if kind != probeLiveness {
		return
	}
	if c.OK() {
		s.failures = 0
		s.lastOK, s.lastTook = c.At, c.Took
		return
	}
	s.failures = c.Failures
	s.failTotal++
}

// Ready implements supervise.Observer.
func (s *State) Ready(l health.Load) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load = &l
	s.lastOK = l.ReadyAt
	if p := s.probes[probeReadiness]; p != nil {
		s.lastTook = time.Duration(p.TookMS * float64(time.Millisecond))
	}
}

// Stopping implements supervise.Observer.
func (s *State) Stopping(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping == "" {
		s.stopping = why
	}
}

// Exited implements supervise.Observer. The end is recorded for the next
// launch of the profile when Info.LaunchesDir is set.
func (s *State) Exited(status, code int, err error) {
	x := &Exit{At: timeNow().UTC(), Status: status, Code: code}
	if err != nil {
		x.Reason, _, _ = strings.Cut(err.Error(), "\n")
	}
	s.mu.Lock()
	if s.exit == nil {
		s.exit = x
	}
	s.mu.Unlock()
	if s.info.LaunchesDir != "" {
		_ = RecordExit(s.info.LaunchesDir, s.info.Profile, *x)
	}
}

// Live reports whether the supervision loop still runs: /livez.
func (s *State) Live() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exit == nil
}

// ReadyNow reports whether the server is ready and liveness holds, and
// when not, the phase and why: /readyz.
func (s *State) ReadyNow() (ok bool, phase, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	phase, why = s.phaseLocked(timeNow())
	return phase == PhaseReady, phase, why
}

// phaseLocked names the launch's phase at now, with a line saying why
// it is not ready.
func (s *State) phaseLocked(now time.Time) (phase, why string) {
	switch {
	case s.exit != nil:
		return PhaseExited, fmt.Sprintf("the server exited with status %d", s.exit.Status)
	case s.stopping != "":
		return PhaseStopping, s.stopping // "stopping" or "stopping: why"
	case s.load != nil:
		if ok, why := s.livenessLocked(now); !ok {
			return PhaseUnhealthy, why
		}
		return PhaseReady, ""
	}
	phase = PhaseStarting
	if s.tracker != nil {
		if p, ok := s.tracker.Last(); ok {
			phase = p.Name
		}
	}
	why = "loading: " + phase
	if !s.startedAt.IsZero() {
		elapsed := now.Sub(s.startedAt)
		why += fmt.Sprintf(", %s elapsed", health.Secs(elapsed))
		if left, ok := s.est.Remaining(elapsed); ok {
			why += fmt.Sprintf(", ETA %s", health.Secs(left))
		}
	}
	if p := s.probes[probeReadiness]; p != nil && !p.OK {
		why += ", last probe: " + p.Result
	}
	return phase, why
}

// livenessLocked: liveness holds while the last probe passed and the
// next answer is not overdue. Probes start every interval, so an answer
// later than one interval plus slack after the last one means the probe
// in flight hangs (a rank stuck in a collective): /readyz says so at
// once rather than after the probe's own timeout.
func (s *State) livenessLocked(now time.Time) (bool, string) {
	iv := s.info.LivenessInterval
	if iv <= 0 {
		return true, ""
	}
	if s.failures > 0 {
		reason := "failed"
		if p := s.probes[probeLiveness]; p != nil && p.Error != "" {
			reason = p.Error
		}
		return false, fmt.Sprintf("unhealthy: the last %d liveness probe(s) failed (%s)", s.failures, reason)
	}
	if late := now.Sub(s.lastOK); late > iv+max(livenessSlack, 2*s.lastTook) {
		return false, fmt.Sprintf("unhealthy: no liveness answer for %s (health.interval %s)", health.Secs(late), iv)
	}
	return true, ""
}
