package main

import (
	"fmt"
	"os"
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
	name := optionName(a)
	var spellings []string
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			spellings = append(spellings, n)
		}
	}
	msg := fmt.Sprintf("unknown flag %s", dashed(name))
	if near := catalog.Nearest(name, spellings, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", dashed(near[0]))
	}
	full := commandPath(path)
	return inputerr.Errorf("%s (see `sglaunch %s --help`)\n%s", msg, full, usageLine(full, cmd))
}

// misplacedOption answers an option given before the command (`sglaunch
// --profile demo serve`): it says which command it belongs after.
func misplacedOption(app *cli.App, rest []string) error {
	name := optionName(rest[0])
	var owners []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if lookupFlag(c.Flags, "--"+name) != nil {
				owners = append(owners, strings.TrimSpace(prefix+" "+c.Name))
			}
			walk(strings.TrimSpace(prefix+" "+c.Name), c.Subcommands)
		}
	}
	walk("", app.Commands)
	if len(owners) == 0 {
		return inputerr.Errorf("unknown flag %s; see `sglaunch --help`", dashed(name))
	}
	// The command the user meant is the first word that names one.
	for i, a := range rest {
		if isOption(a) || findCommand(app.Commands, a) == nil {
			continue
		}
		fixed := append(append([]string{a}, rest[:i]...), rest[i+1:]...)
		return inputerr.Errorf("%s is an option of the command, not of sglaunch: put it after %s, like: sglaunch %s", dashed(name), a, strings.Join(fixed, " "))
	}
	return inputerr.Errorf("%s is an option of a command (%s): put it after one, like: sglaunch %s %s", dashed(name), strings.Join(owners, ", "), owners[0], strings.Join(rest, " "))
}

// profileAsArgument answers a positional argument given to a command that
// takes none but a --profile: `config demo` means `config --profile demo`.
func profileAsArgument(path []*cli.Command, opts, pos []string) error {
	cmd := path[len(path)-1]
	if len(pos) == 0 || (argsSpec(cmd) != "" && !strings.HasPrefix(argsSpec(cmd), "[--")) {
		return nil
	}
	full := commandPath(path)
	hasProfile := lookupFlag(cmd.Flags, "--profile") != nil
	given := slices.ContainsFunc(opts, func(o string) bool { return optionName(o) == "profile" || optionName(o) == "p" })
	switch {
	case hasProfile && !given:
		return inputerr.Errorf("%s: unexpected argument %q; a profile is named with --profile, like: sglaunch %s --profile %s", full, pos[0], full, pos[0])
	case !hasProfile && argsSpec(cmd) == "":
		return inputerr.Errorf("%s: unexpected argument %q; it takes none\n%s", full, pos[0], usageLine(full, cmd))
	}
	return nil
}

// checkWorkloadList answers `-w decode-1,sweep`: one workload per -w.
func checkWorkloadList(path []*cli.Command, opts []string) error {
	if commandPath(path) != "bench" {
		return nil
	}
	for i := 0; i < len(opts); i++ {
		name := optionName(opts[i])
		if name != "w" && name != "workload" {
			continue
		}
		val, inline := "", false
		if _, v, ok := strings.Cut(opts[i], "="); ok {
			val, inline = v, true
		} else if i+1 < len(opts) {
			val = opts[i+1]
		}
		if !inline {
			i++
		}
		if !strings.Contains(val, ",") || strings.Contains(val, "/") {
			continue
		}
		if _, err := os.Stat(val); err == nil {
			continue
		}
		var fix []string
		for _, w := range strings.Split(val, ",") {
			if w = strings.TrimSpace(w); w != "" {
				fix = append(fix, "-w "+w)
			}
		}
		return inputerr.Errorf("--workload %q: one workload per option; repeat it: %s", val, strings.Join(fix, " "))
	}
	return nil
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkSetLists answers `--set args.cuda-graph-bs=1,2,4`: SGLang reads a
// list flag as separate values, so a number list is written as YAML.
func checkSetLists(opts []string) error {
	for i := 0; i < len(opts); i++ {
		if optionName(opts[i]) != "set" {
			continue
		}
		val := ""
		if _, v, ok := strings.Cut(opts[i], "="); ok {
			val = v
		} else if i+1 < len(opts) {
			i++
			val = opts[i]
		}
		key, v, ok := strings.Cut(val, "=")
		flag, isArg := strings.CutPrefix(key, "args.")
		v = strings.TrimSpace(v)
		if !ok || !isArg || !strings.Contains(v, ",") || strings.HasPrefix(v, "[") {
			continue
		}
		f, found := catalog.SGLangArgs().Lookup("--" + strings.TrimLeft(flag, "-"))
		if !found || (f.Nargs != "+" && f.Nargs != "*") || (f.Type != "int" && f.Type != "float") {
			continue
		}
		items := strings.Split(v, ",")
		for j := range items {
			items[j] = strings.TrimSpace(items[j])
		}
		return inputerr.Errorf("--set %s: %s takes a list of numbers; write it as a YAML list: --set '%s=[%s]'", val, f.Name, key, strings.Join(items, ", "))
	}
	return nil
}
