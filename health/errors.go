package health

import "errors"

// Sentinels for the ways a load can fail on sglaunch's own budgets.
var (
	// ErrStartTimeout: the server was not ready within health.start_timeout.
	ErrStartTimeout = errors.New("start timeout")
	// ErrStalled: the server printed nothing for health.stall_timeout
	// while loading.
	ErrStalled = errors.New("load stalled")
)
