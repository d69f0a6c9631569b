package health

import "errors"

// Sentinels for the ways a load can fail on sglaunch's own budgets.
var (
	// ErrStartTimeout: the server was not ready within health.start_timeout.
	ErrStartTimeout = errors.New("start timeout")
	// ErrStalled: the server printed nothing for health.stall_timeout
	// while loading.
	ErrStalled = errors.New("load stalled")
	// ErrNotYet: a Gate's Confirm cannot tell yet whether a 200 came
	// from the right server; the gate keeps probing.
	ErrNotYet = errors.New("not confirmed yet")
)
