package verify

import "errors"

// Sentinels for the cases verify cannot answer; callers report them with
// exit status 2.
var (
	// ErrGone: the server (or the sglaunch that ran it) no longer runs.
	ErrGone = errors.New("gone")
	// ErrLoading: the server runs but is not ready yet.
	ErrLoading = errors.New("still loading")
	// ErrNoTarget: nothing says which deployment to check.
	ErrNoTarget = errors.New("no deployment found")
	// ErrWrongServer: the located server's port is held by another
	// process, so its address would show someone else's server.
	ErrWrongServer = errors.New("the port belongs to another process")
)
