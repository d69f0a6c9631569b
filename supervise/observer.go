package supervise

import (
	"errors"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/launcher"
)

// What Observer.Probe's kind says.
const (
	ProbeReadiness = "readiness" // the gate's probes during the load
	ProbeLiveness  = "liveness"  // the probes after ready
)

// Observer is told what a session sees as it happens, so that a status
// endpoint can answer from the session's own knowledge without probing
// the server or touching its processes. Methods are called from the
// session's goroutines and must return at once.
type Observer interface {
	// Started: the server's main process runs since at.
	Started(pid int, at time.Time)
	// Loading: the readiness gate begins. The tracker names the start-up
	// phases as they appear; est is what earlier loads of the plan say.
	Loading(t *health.Tracker, est health.Estimate)
	// Probe: one /health probe ended (kind ProbeReadiness or
	// ProbeLiveness; a liveness check counts its failures in a row).
	Probe(kind string, c health.Check)
	// Ready: the gate has passed, before READY=1 goes to systemd.
	Ready(health.Load)
	// Stopping: the server is being stopped, for why.
	Stopping(why string)
	// Exited: no process of the server's tree is left. status is the
	// server's own exit status (128+N when killed by signal N; -1 when it
	// never ran), code sglaunch's (launcher.ExitCode), err the session's
	// result (nil when the server exited 0 by itself).
	Exited(status, code int, err error)
}

// exitOf is how a session's result reads to an Observer.
func exitOf(err error) (status, code int) {
	var e *launcher.Error
	switch {
	case err == nil:
		return 0, 0
	case errors.As(err, &e) && e.Ran:
		return int(e.Status), launcher.ExitCode(err)
	}
	return -1, launcher.ExitCode(err)
}
