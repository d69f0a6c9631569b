package cliflow

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Help is what a command's --help adds to its flags: a description
// where the command has none, examples, and the exit statuses.
type Help struct {
	Description string
	Examples    []string
	Exit        string
}

// Decorate prepares the command tree at start-up: every command's help
// gets its description, examples and exit statuses from texts (keyed by
// the command's path below the application); `help` is a word Arrange
// answers (so urfave's help command, whose unknown topic exits 3, is not
// added); argument errors show the usage line; usage errors are input
// errors. each, if not nil, is called on every command with its path.
func Decorate(cmds []*cli.Command, texts map[string]Help, each func(path string, c *cli.Command)) {
	decorate(cmds, "", texts, each)
}

func decorate(cmds []*cli.Command, parent string, texts map[string]Help, each func(path string, c *cli.Command)) {
	for _, c := range cmds {
		path := strings.TrimSpace(parent + " " + c.Name)
		c.OnUsageError = UsageError
		c.HideHelpCommand = true
		if h, ok := texts[path]; ok {
			if c.Description == "" {
				c.Description = h.Description
			}
			c.CustomHelpTemplate = helpTemplate(c, h)
		}
		if each != nil {
			each(path, c)
		}
		if c.Action != nil && ArgsSpec(c) != "" && !strings.HasPrefix(ArgsSpec(c), "[--") {
			c.Action = withUsageLine(c, path)
		}
		decorate(c.Subcommands, path, texts, each)
	}
}

func helpTemplate(c *cli.Command, h Help) string {
	tmpl := cli.CommandHelpTemplate
	if len(c.Subcommands) > 0 {
		tmpl = cli.SubcommandHelpTemplate
	}
	var b strings.Builder
	b.WriteString(tmpl)
	if len(h.Examples) > 0 {
		b.WriteString("\nEXAMPLES:\n")
		for _, ex := range h.Examples {
			fmt.Fprintf(&b, "   %s\n", ex)
		}
	}
	if h.Exit != "" {
		fmt.Fprintf(&b, "\nEXIT STATUS:\n   %s\n", h.Exit)
	}
	return b.String()
}

// withUsageLine adds the usage line to an input error of a command called
// with the wrong number of arguments, after the command's own message.
func withUsageLine(c *cli.Command, path string) cli.ActionFunc {
	action := c.Action
	min, max := arity(ArgsSpec(c))
	return func(ctx *cli.Context) error {
		err := action(ctx)
		if n := ctx.NArg(); err != nil && inputerr.Is(err) && (n < min || (max >= 0 && n > max)) {
			return inputerr.Wrap(&withUsage{err: err, usage: UsageLine(path, c)})
		}
		return err
	}
}

type withUsage struct {
	err   error
	usage string
}

func (w *withUsage) Error() string { return w.err.Error() + "\n" + w.usage }
func (w *withUsage) Unwrap() error { return w.err }

// arity reads how many arguments a usage like "A B" or "ID [ID...]" takes;
// max is -1 without a limit.
func arity(spec string) (min, max int) {
	for _, f := range strings.Fields(spec) {
		optional := strings.HasPrefix(f, "[")
		if strings.Contains(f, "...") {
			max = -1
		}
		if !optional {
			min++
		}
		if max >= 0 {
			max++
		}
	}
	return min, max
}

// defaultRE is urfave's default notation, `(default: X)` or
// `(default: "X")`.
var defaultRE = regexp.MustCompile(`\(default: "?([^")]*)"?\)`)

// flagString writes every default in one notation, `(default X)`, as the
// flags' own texts do, and leaves out the defaults that say nothing: false
// for a switch, 0 for a number that means none.
func flagString(f cli.Flag) string {
	s := defaultFlagStringer(f)
	return defaultRE.ReplaceAllStringFunc(s, func(m string) string {
		v := defaultRE.FindStringSubmatch(m)[1]
		if v == "false" || (v == "0" && isNumberFlag(f)) {
			return ""
		}
		return "(default " + v + ")"
	})
}

func isNumberFlag(f cli.Flag) bool {
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Float64Flag:
		return true
	}
	return false
}

var defaultFlagStringer = cli.FlagStringer

func init() {
	cli.FlagStringer = func(f cli.Flag) string { return strings.TrimRight(flagString(f), " ") }
}
