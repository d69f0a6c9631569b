package yamlnode

import (
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Pos is where a value was written.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem at one place of a file, with what would be right:
// file:line:col: key: msg.
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

// Errorf returns an input error (see inputerr) at pos for key.
func Errorf(pos Pos, key, format string, args ...any) error {
	return inputerr.Wrap(&Error{Pos: pos, Key: key, Msg: fmt.Sprintf(format, args...)})
}
