package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/preflight"
)

var catalogFlag = &cli.BoolFlag{Name: "catalog", Usage: "check flags and SGLANG_* variables against the embedded catalog, not the installed SGLang"}

func preflightCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "preflight",
		Usage:       "check a profile before launching: NCCL/CUDA/PyTorch variables, SGLang flags and variables, model paths, port, GPUs",
		ArgsUsage:   "[-- SERVER_ARGS...]",
		Description: "Prints each check as PASS, WARN or FAIL with the reason and the fix, or SKIP when it did not run.",
		Flags:       []cli.Flag{profileFlag, modeFlag(plan.ModeServe), setFlag, unsetFlag, jsonFlag, catalogFlag},
		Action: func(c *cli.Context) error {
			// Every mistake of the profile is a finding, the flag
			// values of the wrong type too, not an input error.
			plan, s, err := e.resolvePlan(c, c.String("mode"), true)
			if err != nil {
				return err
			}
			e.placeToShow(plan)
			rep := preflight.Run(c.Context, plan, e.preflightOptions(s, c.Bool("catalog")))
			if c.Bool("json") {
				_, err = e.stdout.Write(rep.JSON())
			} else {
				err = rep.WriteText(e.stdout)
			}
			if err != nil {
				return err
			}
			if rep.Failed() {
				return &cliflow.Exit{Code: 1, Msg: fmt.Sprintf("preflight: %d check(s) failed", rep.Count(preflight.Fail))}
			}
			return nil
		},
	}
}

func (e *env) preflightOptions(s plan.Config, catalogOnly bool) preflight.Options {
	return preflight.Options{
		StateDir: statedir.State(s.StateDir, e.getenv),
		Catalog:  catalogOnly,
		LookPath: e.lookPath,
		Probes:   e.probes,
	}
}
