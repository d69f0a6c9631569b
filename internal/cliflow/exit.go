package cliflow

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
)

// Exit ends the application with a given exit status, e.g. a server's.
type Exit struct {
	Code  int
	Msg   string         // printed when non-empty
	Raise syscall.Signal // end by this signal instead (Code is the fallback)
}

func (e *Exit) Error() string { return e.Msg }

// UsageError turns urfave's flag parsing errors into input errors; it is
// every command's OnUsageError and the application's.
func UsageError(c *cli.Context, err error, _ bool) error {
	msg := strings.TrimPrefix(err.Error(), "flag provided but not defined: -")
	if msg != err.Error() {
		msg = fmt.Sprintf("unknown flag --%s; see `%s --help`", strings.TrimLeft(msg, "-"), strings.TrimSpace("sglaunch "+commandName(c)))
	}
	msg = flagRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagRE.FindStringSubmatch(m)
		return sub[1] + Dashed(sub[2])
	})
	if path := commandName(c); path != "" {
		msg += "\n" + UsageLine(path, c.Command)
	}
	return inputerr.Errorf("%s", msg)
}

// commandName is the context's command path below sglaunch, "" at the top.
func commandName(c *cli.Context) string {
	var names []string
	for _, ctx := range c.Lineage() {
		if ctx.Command != nil && ctx.Command.Name != "" && ctx.Command.Name != c.App.Name && !slices.Contains(names, ctx.Command.Name) {
			names = append([]string{ctx.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// flagRE is a flag as Go's flag package names it in its errors: -name.
var flagRE = regexp.MustCompile(`(flag needs an argument: |for flag )-([a-z][a-z0-9-]+)`)

// printable escapes the control characters of an error message (a CR or
// an ESC in a path or a value the user gave) so that none reaches the
// terminal; tab and newline stay.
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }

// Status prints err (if any) and maps it to an exit status: 0 none, 2
// an input error or a usage error, an Exit's own Code, else 1. raise is
// the signal an Exit asks to end by. In the journal the error is stored
// at priority 3, as the logger's errors are.
func Status(err error, stderr io.Writer) (code int, raise syscall.Signal) {
	if err == nil {
		return 0, 0
	}
	var se *Exit
	if errors.As(err, &se) {
		if se.Msg != "" {
			fmt.Fprint(stderr, logging.ForJournal(stderr, slog.LevelError, "sglaunch: "+printable(se.Msg)+"\n"))
		}
		return se.Code, se.Raise
	}
	fmt.Fprint(stderr, logging.ForJournal(stderr, slog.LevelError, "sglaunch: "+printable(err.Error())+"\n"))
	if inputerr.Is(err) {
		return 2, 0
	}
	// urfave's own exit statuses (3 for an unknown help topic) are
	// usage errors: sglaunch exits 0, 1 or 2.
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return 2, 0
	}
	return 1, 0
}
