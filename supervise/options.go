package supervise

import (
	"time"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/launcher"
)

// Options says how Launch runs and watches the plan's server.
type Options struct {
	launcher.Options
	// StateDir is sglaunch's state directory; earlier load times of the
	// same plan are remembered there for the ETA. Empty: no memory.
	StateDir string
	// ProgressEvery spaces the status lines during the load (default 30s).
	ProgressEvery time.Duration
	// OnStarted is called once the server's process runs.
	OnStarted func(pid int)
	// OnReady is called once the server is ready, before READY=1 and the
	// healthy line.
	OnReady func(health.Load)
	// Observer, when set, is told the session's phases, probes, ready,
	// stop and end (a status endpoint).
	Observer Observer
	// Group, for a rank of a multi-node server, is its end of the
	// control channel, past its rendezvous: READY=1 waits for the whole
	// group, a worker is judged by its process tree and rank 0's
	// heartbeats (never its own /health, SGLang's dummy), and the
	// group's failure stops the server at once.
	Group group.Member
}
