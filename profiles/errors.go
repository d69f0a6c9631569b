package profiles

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// ErrNotFound is returned when no profile answers to a name.
var ErrNotFound = errors.New("profile not found")

// Error is a problem at one place of a profile, with what would be right.
type Error struct {
	Pos Pos
	Key string // dotted path of the bad key, e.g. args.tp
	Msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Pos.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errAt returns an input error at pos.
func errAt(pos Pos, key, format string, args ...any) error {
	return inputerr.Wrap(&Error{Pos: pos, Key: key, Msg: fmt.Sprintf(format, args...)})
}
