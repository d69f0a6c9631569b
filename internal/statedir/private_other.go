//go:build !unix

package statedir

import (
	"errors"
	"os"
)

// ErrUnsafe is a directory another user could write to or own.
var ErrUnsafe = errors.New("unsafe directory")

// Private makes dir; ownership is not checked on this platform.
func Private(dir string) error { return os.MkdirAll(dir, 0o700) }

// Owned is a no-op on this platform.
func Owned(dir string) error { return nil }
