package loadgen

import "errors"

var (
	// ErrServerGone means the server refused a connection mid-run: it
	// has exited or closed its port.
	ErrServerGone = errors.New("server stopped accepting connections")
	// ErrNoneCompleted means every measured request of a level failed.
	ErrNoneCompleted = errors.New("no request completed")
	// ErrWarmup means every warm-up request failed.
	ErrWarmup = errors.New("warm-up failed")
)

// errWouldBlock is a read that found no data while the reactor runs the
// stream (h1_raw_linux.go): every reader between the socket and follow
// passes it up with its state kept, so that the next step picks up where
// this one stopped. It never ends a stream.
var errWouldBlock = errors.New("no data yet")
