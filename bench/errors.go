package bench

import "errors"

var (
	// ErrNotFound is returned when no record answers to a name.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous is returned when an ID prefix matches several records.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrFailed marks a run that did not complete every workload.
	ErrFailed = errors.New("benchmark failed")
	// ErrTooManyFailures marks a run that completed with more failed
	// requests than its FailureBudget allows.
	ErrTooManyFailures = errors.New("too many failed requests")
	// ErrStopKilled marks a Server.Stop that had to kill the server after
	// stop_timeout, rather than see it drain.
	ErrStopKilled = errors.New("killed after stop_timeout")
)
