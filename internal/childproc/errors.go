package childproc

import "errors"

// ErrTimeout marks a child killed because it ran past its Spec.Timeout;
// Result.Err wraps it as "timed out after 20s; killed".
var ErrTimeout = errors.New("timed out")

// errNoCommand is Start's answer to an empty Argv.
var errNoCommand = errors.New("childproc: no command")
