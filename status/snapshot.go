package status

import (
	"math"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/runstate"
)

// Snapshot is /status: one launch as an operator asks about it. Every
// field is a fact sglaunch holds; none is a secret (no plan values, no
// environment, no server output).
type Snapshot struct {
	Profile       string `json:"profile"`
	Mode          string `json:"mode"`
	Fingerprint   string `json:"fingerprint"`
	SGLangVersion string `json:"sglang_version,omitempty"`
	Interpreter   string `json:"interpreter,omitempty"`
	URL           string `json:"url"`
	// Group places a rank of a multi-node server (nil: one node).
	Group *runstate.Group `json:"group,omitempty"`
	// StatusURL is where the status endpoint answers ("" when off).
	StatusURL string `json:"status_url,omitempty"`
	// Phase is starting, a start-up phase (health.Phase* names), ready,
	// unhealthy, stopping or exited; Why says why it is not ready.
	Phase string `json:"phase"`
	Ready bool   `json:"ready"`
	Why   string `json:"why,omitempty"`
	PIDs  PIDs   `json:"pids"`
	// Load is this launch's load: started_at, and once ready ready_at,
	// load_time_s and every phase; while loading, the phases so far.
	Load health.Load `json:"load"`
	// ElapsedS is the time since the server started.
	ElapsedS float64 `json:"elapsed_s,omitempty"`
	// SinceReadyS is the time since ready.
	SinceReadyS float64 `json:"since_ready_s,omitempty"`
	ETA         *ETA    `json:"eta,omitempty"`
	// LastLoad is the latest earlier load of this plan on this host.
	LastLoad  *health.Load `json:"last_load,omitempty"`
	Readiness *Probe       `json:"last_readiness_probe,omitempty"`
	Liveness  Liveness     `json:"liveness"`
	// Restarts counts this host's earlier launches of the profile since
	// LaunchesSince; LastExit is how the one before this ended.
	Restarts      int        `json:"restarts"`
	LaunchesSince *time.Time `json:"launches_since,omitempty"`
	LastExit      *Exit      `json:"last_exit,omitempty"`
	Stopping      string     `json:"stopping,omitempty"`
	// Exit is how this launch's server ended, once it has.
	Exit        *Exit      `json:"exit,omitempty"`
	Benchmarked *Benchmark `json:"benchmarked,omitempty"`
	// Stale is set by FromRunState when the launch's sglaunch is gone.
	Stale bool `json:"stale,omitempty"`
}

// PIDs are the launch's processes.
type PIDs struct {
	Sglaunch int `json:"sglaunch"`
	Server   int `json:"server,omitempty"`
}

// ETA is the start-up estimate from earlier loads of the plan.
type ETA struct {
	RemainingS   float64 `json:"remaining_s,omitempty"`
	Known        bool    `json:"known"` // false past the typical time
	TypicalS     float64 `json:"typical_s"`
	EarlierLoads int     `json:"earlier_loads"`
}

// Liveness is how the probes after ready go.
type Liveness struct {
	IntervalS float64 `json:"interval_s"`
	Last      *Probe  `json:"last,omitempty"`
	// Failures counts failed probes in a row; FailuresTotal all of them.
	Failures      int `json:"failures"`
	FailuresTotal int `json:"failures_total"`
}

// Probe is one /health probe's outcome.
type Probe struct {
	At     time.Time `json:"at"`
	OK     bool      `json:"ok"`
	Result string    `json:"result"` // a word of health.Results
	Error  string    `json:"error,omitempty"`
	TookMS float64   `json:"took_ms"`
}

func probeOf(c health.Check) *Probe {
	p := &Probe{At: c.At.UTC(), OK: c.OK(), Result: c.Result(), TookMS: ms(c.Took)}
	if !p.OK {
		p.Error = c.Reason()
	}
	return p
}

// Exit is how a run's server ended.
type Exit struct {
	At time.Time `json:"at"`
	// Status is the server's exit status (128+N for signal N); -1 when it
	// never ran.
	Status int `json:"status"`
	// Code is sglaunch's own exit status.
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
}

// Benchmark names the bench record a plan reproduces (Exact), or the
// nearest one and the settings it differs in, or why there is none.
type Benchmark struct {
	Record           string   `json:"record,omitempty"`
	Date             string   `json:"date,omitempty"`
	Exact            bool     `json:"exact"`
	OutputThroughput float64  `json:"output_throughput,omitempty"`
	Headline         string   `json:"headline,omitempty"`
	DiffersIn        []string `json:"differs_in,omitempty"`
	None             string   `json:"none,omitempty"`
}

// Snapshot returns the launch as /status shows it.
func (s *State) Snapshot() *Snapshot {
	now := timeNow()
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.info
	out := &Snapshot{
		Profile: in.Profile, Mode: in.Mode, Fingerprint: in.Fingerprint, SGLangVersion: in.SGLangVersion,
		Interpreter: in.Interpreter, URL: in.URL, Group: in.Group, PIDs: PIDs{Sglaunch: in.SglaunchPID, Server: s.serverPID},
		LastLoad: in.LastLoad, Readiness: s.probes[probeReadiness], Benchmarked: in.Benchmarked,
		Restarts: in.Launches.Restarts(), LastExit: in.Launches.LastExit, Stopping: s.stopping, Exit: s.exit,
		Liveness: Liveness{IntervalS: in.LivenessInterval.Seconds(), Last: s.probes[probeLiveness], Failures: s.failures, FailuresTotal: s.failTotal},
	}
	if !in.Launches.Since.IsZero() {
		since := in.Launches.Since
		out.LaunchesSince = &since
	}
	out.Phase, out.Why = s.phaseLocked(now)
	out.Ready = out.Phase == PhaseReady
	switch {
	case s.load != nil:
		out.Load = *s.load
		out.SinceReadyS = round3(now.Sub(s.load.ReadyAt).Seconds())
	case s.tracker != nil:
		out.Load = health.Load{StartedAt: s.startedAt, Phases: s.tracker.Phases()}
	default:
		out.Load = health.Load{StartedAt: s.startedAt}
	}
	out.Load.StartedAt = out.Load.StartedAt.UTC()
	if !out.Load.ReadyAt.IsZero() {
		out.Load.ReadyAt = out.Load.ReadyAt.UTC()
	}
	if !s.startedAt.IsZero() {
		if s.exit == nil {
			out.ElapsedS = round3(now.Sub(s.startedAt).Seconds())
		}
	}
	if s.load == nil && s.exit == nil && s.est.Loads > 0 {
		eta := &ETA{TypicalS: round3(s.est.Typical.Seconds()), EarlierLoads: s.est.Loads}
		if left, ok := s.est.Remaining(now.Sub(s.startedAt)); ok {
			eta.Known, eta.RemainingS = true, round3(left.Seconds())
		}
		out.ETA = eta
	}
	return out
}

func ms(d time.Duration) float64 { return round3(float64(d) / float64(time.Millisecond)) }

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
