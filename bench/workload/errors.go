package workload

import "errors"

// ErrNotFound is returned when no workload answers to a name.
var ErrNotFound = errors.New("not found")
