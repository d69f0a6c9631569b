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
