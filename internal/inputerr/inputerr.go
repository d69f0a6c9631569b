package inputerr

import (
	"errors"
	"fmt"
)

// Error is an input error. Its message already says what is wrong and
// what would be right.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap marks err as an input error; nil stays nil.
func Wrap(err error) error {
	if err == nil || Is(err) {
		return err
	}
	return &Error{Err: err}
}

// Errorf formats an input error; %w wraps as in fmt.Errorf.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Is reports whether err, or an error it wraps, is an input error.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
