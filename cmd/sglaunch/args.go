package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// checkArgs answers the leaf command's arguments that would parse but
// not mean what was meant: a profile given as an argument, several
// workloads in one -w, a number list in --set written with commas.
func checkArgs(path []*cli.Command, opts, pos []string) error {
	if err := profileAsArgument(path, opts, pos); err != nil {
		return err
	}
	if cliflow.CommandPath(path) == "bench" {
		for _, v := range cliflow.OptionValues(opts, "w", "workload") {
			if err := workload.CheckOption(v); err != nil {
				return err
			}
		}
	}
	for _, v := range cliflow.OptionValues(opts, "set") {
		if err := plan.CheckSetOption(v); err != nil {
			return err
		}
	}
	return nil
}

// profileAsArgument answers a positional argument given to a command that
// takes none but a --profile: `config demo` means `config --profile demo`.
func profileAsArgument(path []*cli.Command, opts, pos []string) error {
	cmd := path[len(path)-1]
	if len(pos) == 0 || (cliflow.ArgsSpec(cmd) != "" && !strings.HasPrefix(cliflow.ArgsSpec(cmd), "[--")) {
		return nil
	}
	full := cliflow.CommandPath(path)
	hasProfile := cliflow.LookupFlag(cmd.Flags, "--profile") != nil
	given := slices.ContainsFunc(opts, func(o string) bool { return cliflow.OptionName(o) == "profile" || cliflow.OptionName(o) == "p" })
	switch {
	case hasProfile && !given:
		return inputerr.Errorf("%s: unexpected argument %q; a profile is named with --profile, like: sglaunch %s --profile %s", full, pos[0], full, pos[0])
	case !hasProfile && cliflow.ArgsSpec(cmd) == "":
		return inputerr.Errorf("%s: unexpected argument %q; it takes none\n%s", full, pos[0], cliflow.UsageLine(full, cmd))
	}
	return nil
}
