package supervise

import (
	"errors"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/launcher"
)

// Sentinels for how a session ends badly, besides launcher's (ErrStart,
// ErrExited, ErrInterrupted); check them with errors.Is.
var (
	// ErrStartTimeout: not ready within health.start_timeout.
	ErrStartTimeout = health.ErrStartTimeout
	// ErrStalled: no output for health.stall_timeout during the load.
	ErrStalled = health.ErrStalled
	// ErrUnhealthy: health.failure_threshold liveness probes failed in a
	// row and health.on_unhealthy is exit.
	ErrUnhealthy = errors.New("server unhealthy")
	// ErrPortTaken: /health answered on the plan's port, but the socket
	// listening there belongs to a process outside the server's tree
	// (another server, an earlier launch): what answered is not this
	// server, and this server could never bind the port.
	ErrPortTaken = errors.New("port held by another process")
)

// reason is why the supervisor stops a server: a sentinel for errors.Is,
// with the words an operator reads.
type reason struct {
	sentinel error
	msg      string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.sentinel }

// Re-exported so that callers need one package for a session's outcome.
var (
	ErrStart       = launcher.ErrStart
	ErrExited      = launcher.ErrExited
	ErrInterrupted = launcher.ErrInterrupted
)
