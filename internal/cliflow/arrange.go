package cliflow

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Check answers a leaf command's arguments that would parse but not mean
// what was meant: path is the command path, opts the options given to the
// last command (each value after its option), pos its positional
// arguments. nil accepts everything.
type Check func(path []*cli.Command, opts, pos []string) error

// Arrange reads the command line against the command tree before urfave
// parses it, and returns it in the order urfave's parser needs: at each
// level the options first, then the positional arguments. urfave, like Go's
// flag package, stops at the first positional argument, so `bench show ID
// --json` and `bench report ID -o f.html` would otherwise fail.
//
// Along the way it answers what urfave answers wrongly or not at all: an
// unknown command or subcommand (did you mean), `help [COMMAND...]` at every
// level, an option given before the command it belongs to, an unknown
// option (did you mean), and what check answers.
// Everything after `--` is left as it is: it belongs to the server.
func Arrange(app *cli.App, args []string, check Check) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	out := []string{args[0]}
	rest := args[1:]
	// The application's own options (--help, --version) come before the
	// command; any other option there belongs to a command.
	for len(rest) > 0 && IsOption(rest[0]) {
		if rest[0] == "--" {
			return append(out, rest...), nil
		}
		if f := LookupFlag(appFlags(app), rest[0]); f == nil {
			return nil, misplacedOption(app, rest)
		}
		out, rest = append(out, rest[0]), rest[1:]
	}
	if len(rest) == 0 {
		return out, nil
	}
	if rest[0] == "help" {
		return helpPath(app.Commands, []string{args[0]}, rest[1:], "")
	}
	cmd := findCommand(app.Commands, rest[0])
	if cmd == nil {
		return nil, unknownCommand(rest[0], app.Commands, "", false)
	}
	return arrangeCommand([]*cli.Command{cmd}, append(out, rest[0]), rest[1:], check)
}

// arrangeCommand arranges what follows the command path (out ends with
// the last command's name).
func arrangeCommand(path []*cli.Command, out, rest []string, check Check) ([]string, error) {
	cmd := path[len(path)-1]
	var opts, pos []string
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case a == "--":
			if wantsHelp(opts) {
				return append(out, "--help"), nil
			}
			if err := checkOptions(check, path, opts, nil); err != nil {
				return nil, err
			}
			out = append(append(out, opts...), pos...)
			return append(out, rest...), nil
		case IsOption(a):
			f := LookupFlag(commandFlags(cmd), a)
			if f == nil {
				return nil, unknownOption(path, a)
			}
			opts, rest = append(opts, a), rest[1:]
			if takesValue(f) && !strings.Contains(a, "=") && len(rest) > 0 {
				opts, rest = append(opts, rest[0]), rest[1:]
			}
			continue
		case len(cmd.Subcommands) > 0 && len(pos) == 0:
			// The first positional argument of a command with
			// subcommands names one of them.
			if a == "help" {
				return helpPath(cmd.Subcommands, append(out, opts...), rest[1:], CommandPath(path))
			}
			sub := findCommand(cmd.Subcommands, a)
			if sub == nil {
				return nil, unknownCommand(a, cmd.Subcommands, CommandPath(path), cmd.Action != nil && strings.Contains(cmd.ArgsUsage, "--"))
			}
			return arrangeCommand(append(path, sub), append(append(out, opts...), a), rest[1:], check)
		}
		pos, rest = append(pos, a), rest[1:]
	}
	if wantsHelp(opts) {
		// --help anywhere shows the command's help: urfave would take
		// an argument beside it for a help topic ("No help topic").
		return append(out, "--help"), nil
	}
	if err := checkOptions(check, path, opts, pos); err != nil {
		return nil, err
	}
	return append(append(out, opts...), pos...), nil
}

// checkOptions runs check, if any, on the leaf command's arguments.
func checkOptions(check Check, path []*cli.Command, opts, pos []string) error {
	if check == nil {
		return nil
	}
	return check(path, opts, pos)
}

// helpPath turns `help [COMMAND...]` into `COMMAND... --help`.
func helpPath(cmds []*cli.Command, out, names []string, parent string) ([]string, error) {
	for _, name := range names {
		if IsOption(name) {
			continue
		}
		cmd := findCommand(cmds, name)
		if cmd == nil {
			return nil, unknownCommand(name, cmds, parent, false)
		}
		out = append(out, name)
		cmds, parent = cmd.Subcommands, strings.TrimSpace(parent+" "+cmd.Name)
	}
	return append(out, "--help"), nil
}

func wantsHelp(opts []string) bool {
	return slices.ContainsFunc(opts, func(o string) bool { return o == "-h" || o == "--help" || o == "-help" })
}

// IsOption says a is an option: - or -- and a name (or -- alone).
func IsOption(a string) bool { return len(a) > 1 && a[0] == '-' }

// OptionName is the name in -x, --name or --name=value.
func OptionName(a string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name
}

// LookupFlag is the flag among flags that option a (-x, --name,
// --name=value) names, nil if none.
func LookupFlag(flags []cli.Flag, a string) cli.Flag {
	name := OptionName(a)
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

// commandFlags are the options a command accepts, --help included.
func commandFlags(cmd *cli.Command) []cli.Flag {
	if cmd.HideHelp {
		return cmd.Flags
	}
	return append(slices.Clip(cmd.Flags), cli.HelpFlag)
}

func appFlags(app *cli.App) []cli.Flag {
	return append(slices.Clip(app.Flags), cli.HelpFlag, cli.VersionFlag)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// CommandPath is the names of path, joined by spaces.
func CommandPath(path []*cli.Command) string {
	var names []string
	for _, c := range path {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}

// UsageLine is how a command is called, for the messages about its
// arguments.
func UsageLine(path string, cmd *cli.Command) string {
	line := "sglaunch " + path
	if len(cmd.Flags) > 0 {
		line += " [options]"
	}
	switch {
	case len(cmd.Subcommands) > 0 && cmd.Action != nil:
		line += " [COMMAND]"
	case len(cmd.Subcommands) > 0:
		line += " COMMAND"
	}
	if args := ArgsSpec(cmd); args != "" {
		line += " " + args
	}
	return "usage: " + line
}

// ArgsSpec is the ArgsUsage up to its explanation in parentheses.
func ArgsSpec(cmd *cli.Command) string {
	spec, _, _ := strings.Cut(cmd.ArgsUsage, "(")
	return strings.TrimSpace(spec)
}

func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return names
}

// OptionValues are the values given to the options named names, in order:
// --name=value, or the argument after --name. opts are a command's
// options as Check gets them.
func OptionValues(opts []string, names ...string) []string {
	var vals []string
	for i := 0; i < len(opts); i++ {
		if !slices.Contains(names, OptionName(opts[i])) {
			continue
		}
		if _, v, ok := strings.Cut(opts[i], "="); ok {
			vals = append(vals, v)
			continue
		}
		if i+1 < len(opts) {
			vals = append(vals, opts[i+1])
		}
		i++
	}
	return vals
}
