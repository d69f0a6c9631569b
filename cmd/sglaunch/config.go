package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/plan"
)

func configCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "print the effective config (the launch plan) without launching",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags:     []cli.Flag{profileFlag, modeFlag(plan.ModeServe), setFlag, unsetFlag, jsonFlag},
		Action: func(c *cli.Context) error {
			plan, _, err := e.loadPlan(c, c.String("mode"))
			if err != nil {
				return err
			}
			e.placeToShow(plan)
			if c.Bool("json") {
				_, err = e.stdout.Write(plan.View().JSON())
				return err
			}
			_, err = fmt.Fprint(e.stdout, plan.Text())
			return err
		},
	}
}
