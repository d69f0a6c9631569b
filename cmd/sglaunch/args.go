package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/plan"
)

// checkArgs answers the leaf command's arguments that would parse but
// not mean what was meant: a profile given as an argument, several
// workloads in one -w, a number list in --set written with commas.
func checkArgs(path []*cli.Command, opts, pos []string) error {
	if err := cliflow.ArgumentAsOption(path, opts, pos, "profile"); err != nil {
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
