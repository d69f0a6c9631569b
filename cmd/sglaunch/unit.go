package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/systemd"
)

func unitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "unit",
		Usage: "print a systemd service unit that runs `sglaunch serve` for a profile",
		Description: "Type=notify: systemd sees the service started only once /health answers 200. The unit has no\n" +
			"Environment= lines: the server's flags and environment live in the profile.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "name", Usage: "unit `NAME`, without .service (default sglang-PROFILE)"},
			&cli.StringFlag{Name: "user", Usage: "run the server as `USER` (default root)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return inputerr.Errorf("unit: unexpected argument %q; the unit runs the profile as it is (set values in the profile, not here)", c.Args().First())
			}
			plan, _, err := e.loadPlan(c, plan.ModeServe)
			if err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the sglaunch binary: %w", err)
			}
			if resolved, err := filepath.EvalSymlinks(exe); err == nil {
				exe = resolved
			}
			unit, err := systemd.Unit(plan, systemd.UnitOptions{
				Exe:  exe,
				Name: c.String("name"),
				User: c.String("user"),
			})
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(e.stdout, unit)
			return err
		},
	}
}
