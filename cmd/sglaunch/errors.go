package main

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

// statusError ends sglaunch with a given exit status, e.g. the server's.
type statusError struct {
	code  int
	msg   string         // printed when non-empty
	raise syscall.Signal // end by this signal instead (code is the fallback)
}

func (e *statusError) Error() string { return e.msg }

// usageError turns urfave's flag parsing errors into input errors.
func usageError(c *cli.Context, err error, _ bool) error {
	msg := strings.TrimPrefix(err.Error(), "flag provided but not defined: -")
	if msg != err.Error() {
		msg = fmt.Sprintf("unknown flag --%s; see `%s --help`", strings.TrimLeft(msg, "-"), strings.TrimSpace("sglaunch "+commandName(c)))
	}
	msg = flagRE.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagRE.FindStringSubmatch(m)
		return sub[1] + dashed(sub[2])
	})
	if path := commandName(c); path != "" {
		msg += "\n" + usageLine(path, c.Command)
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

// exitStatus prints err (if any) and maps it to an exit status. In the
// journal the error is stored at priority 3, as the logger's errors are.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var se *statusError
	if errors.As(err, &se) {
		if se.msg != "" {
			fmt.Fprint(stderr, logging.ForJournal(stderr, slog.LevelError, "sglaunch: "+printable(se.msg)+"\n"))
		}
		return se.code
	}
	fmt.Fprint(stderr, logging.ForJournal(stderr, slog.LevelError, "sglaunch: "+printable(err.Error())+"\n"))
	if inputerr.Is(err) {
		return 2
	}
	// urfave's own exit statuses (3 for an unknown help topic) are
	// usage errors: sglaunch exits 0, 1 or 2.
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return 2
	}
	return 1
}
