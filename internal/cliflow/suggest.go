package cliflow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// unknownCommand answers a command name that is none of cmds, with the
// nearest one; parent is the command they belong to ("" at the top).
// serverArgs says the parent command takes server arguments after --.
func unknownCommand(name string, cmds []*cli.Command, parent string, serverArgs bool) error {
	names := commandNames(cmds)
	kind, see := "command", "sglaunch --help"
	if parent != "" {
		kind, see = parent+" command", "sglaunch "+parent+" --help"
	}
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if near := catalog.Nearest(name, names, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", near[0])
	}
	msg += fmt.Sprintf(" (%ss: %s; see `%s`)", kind, strings.Join(names, ", "), see)
	if serverArgs {
		msg += "; server arguments go after --"
	}
	return inputerr.Errorf("%s", msg)
}

// unknownOption answers an option the command does not define, with the
// nearest one it does.
func unknownOption(path []*cli.Command, a string) error {
	cmd := path[len(path)-1]
	name := OptionName(a)
	var spellings []string
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			spellings = append(spellings, n)
		}
	}
	msg := fmt.Sprintf("unknown flag %s", Dashed(name))
	if near := catalog.Nearest(name, spellings, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", Dashed(near[0]))
	}
	full := CommandPath(path)
	return inputerr.Errorf("%s (see `sglaunch %s --help`)\n%s", msg, full, UsageLine(full, cmd))
}

// misplacedOption answers an option given before the command (`sglaunch
// --profile demo serve`): it says which command it belongs after.
func misplacedOption(app *cli.App, rest []string) error {
	name := OptionName(rest[0])
	var owners []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if LookupFlag(c.Flags, "--"+name) != nil {
				owners = append(owners, strings.TrimSpace(prefix+" "+c.Name))
			}
			walk(strings.TrimSpace(prefix+" "+c.Name), c.Subcommands)
		}
	}
	walk("", app.Commands)
	if len(owners) == 0 {
		return inputerr.Errorf("unknown flag %s; see `sglaunch --help`", Dashed(name))
	}
	// The command the user meant is the first word that names one.
	for i, a := range rest {
		if IsOption(a) || findCommand(app.Commands, a) == nil {
			continue
		}
		fixed := append(append([]string{a}, rest[:i]...), rest[i+1:]...)
		return inputerr.Errorf("%s is an option of the command, not of sglaunch: put it after %s, like: sglaunch %s", Dashed(name), a, strings.Join(fixed, " "))
	}
	return inputerr.Errorf("%s is an option of a command (%s): put it after one, like: sglaunch %s %s", Dashed(name), strings.Join(owners, ", "), owners[0], strings.Join(rest, " "))
}

// Dashed is name as an option is written: -x, --name.
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// RootAction is the application's action: the help, or an unknown
// command answered with the nearest known one.
func RootAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	var names []string
	for _, cmd := range c.App.Commands {
		names = append(names, cmd.Name)
	}
	msg := fmt.Sprintf("unknown command %q; commands: %s", c.Args().First(), strings.Join(names, ", "))
	if near := catalog.Nearest(c.Args().First(), names, 1); len(near) > 0 {
		msg = fmt.Sprintf("unknown command %q; did you mean %s? (commands: %s)", c.Args().First(), near[0], strings.Join(names, ", "))
	}
	return inputerr.Errorf("%s", msg)
}

// ArgumentAsOption answers a positional argument given to a leaf command
// that takes none (an ArgsUsage empty or only "[-- ...]"): where the
// command has the option subject and it was not given, the argument was
// meant as its value (`config demo` means `config --profile demo`);
// where the command takes no argument at all, it says so.
func ArgumentAsOption(path []*cli.Command, opts, pos []string, subject string) error {
	cmd := path[len(path)-1]
	if len(pos) == 0 || (ArgsSpec(cmd) != "" && !strings.HasPrefix(ArgsSpec(cmd), "[--")) {
		return nil
	}
	full := CommandPath(path)
	f := LookupFlag(cmd.Flags, "--"+subject)
	given := f != nil && slices.ContainsFunc(opts, func(o string) bool { return slices.Contains(f.Names(), OptionName(o)) })
	switch {
	case f != nil && !given:
		return inputerr.Errorf("%s: unexpected argument %q; a %s is named with --%s, like: sglaunch %s --%s %s", full, pos[0], subject, subject, full, subject, pos[0])
	case f == nil && ArgsSpec(cmd) == "":
		return inputerr.Errorf("%s: unexpected argument %q; it takes none\n%s", full, pos[0], UsageLine(full, cmd))
	}
	return nil
}
