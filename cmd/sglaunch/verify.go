package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

func verifyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "verify",
		Usage: "prove that a running deployment runs what a profile or a bench record says (exit 0 match, 1 drift, 2 error)",
		Description: "The expected side is a profile's plan (serve mode) or a bench record's plan. The observed side is read\n" +
			"from the live processes: argv and environment of the server and every descendant, /server_info,\n" +
			"NCCL config files, and what Python's site hooks do at start-up. With no --pid/--port/--url/--unit,\n" +
			"the running sglaunch launch is found through its runtime state file.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "record", Usage: "expect the plan of bench record `ID` (or a unique prefix)"},
			&cli.IntFlag{Name: "pid", Usage: "the server's `PID` (sglaunch's pid resolves to its server)"},
			&cli.IntFlag{Name: "port", Usage: "the server's HTTP `PORT` (the process listening on it)"},
			&cli.StringFlag{Name: "url", Usage: "the server's `URL` (server_info only unless it is local)"},
			&cli.StringFlag{Name: "unit", Usage: "a systemd `UNIT` whose main process runs the server"},
			&cli.BoolFlag{Name: "group", Usage: "on rank 0's host of a multi-node server: verify every rank (each rank's sglaunch observes its own server) in one table"},
			setFlag, unsetFlag, jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if err := needsLinux("sglaunch verify"); err != nil {
				return err
			}
			exp, err := e.expected(c)
			if err != nil {
				return err
			}
			s, err := e.settings(c)
			if err != nil {
				return err
			}
			n := 0
			for _, f := range []string{"pid", "port", "url", "unit"} {
				if c.IsSet(f) {
					n++
				}
			}
			if n > 1 {
				return inputerr.Errorf("give at most one of --pid, --port, --url, --unit")
			}
			target := verify.Target{PID: c.Int("pid"), Port: c.Int("port"), URL: c.String("url"), Unit: c.String("unit"),
				RuntimeDir: statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv), APIKey: e.getenv("OPENAI_API_KEY")}
			if n == 0 && c.String("profile") != "" {
				target.Profile = c.String("profile")
			}
			if c.Bool("group") {
				return e.verifyGroup(c, exp, target)
			}
			report, err := verify.Run(c.Context, exp, target)
			if err != nil {
				// A deployment that cannot be checked (gone, still
				// loading, not found) is exit status 2, as bad input is.
				return inputerr.Wrap(fmt.Errorf("verify: %w", err))
			}
			if c.Bool("json") {
				err = report.WriteJSON(e.stdout)
			} else {
				err = report.WriteText(e.stdout)
			}
			if err != nil {
				return err
			}
			if !report.OK() {
				return &cliflow.Exit{Code: 1}
			}
			return nil
		},
	}
}

// expected resolves the expected side: a record or a profile's serve plan.
func (e *env) expected(c *cli.Context) (verify.Expected, error) {
	if id := c.String("record"); id != "" {
		if c.IsSet("set") || c.IsSet("unset") {
			return verify.Expected{}, inputerr.Errorf("--set/--unset change a profile's plan; a record's plan is fixed")
		}
		rec, err := e.record(c, id)
		if err != nil {
			return verify.Expected{}, err
		}
		exp, _, err := rec.Expected()
		return exp, err
	}
	plan, _, err := e.loadPlan(c, plan.ModeServe)
	if err != nil {
		return verify.Expected{}, err
	}
	return verify.FromPlan(plan, fmt.Sprintf("profile %s (serve)", plan.Profile)), nil
}

// verifyGroup verifies every rank of the multi-node launch found here,
// which must be rank 0's.
func (e *env) verifyGroup(c *cli.Context, exp verify.Expected, target verify.Target) error {
	report, err := verify.RunGroup(c.Context, exp, target)
	if err != nil {
		return inputerr.Wrap(fmt.Errorf("verify --group: %w", err))
	}
	if c.Bool("json") {
		err = report.WriteJSON(e.stdout)
	} else {
		err = report.WriteText(e.stdout)
	}
	switch {
	case err != nil:
		return err
	case report.Drift > 0:
		return &cliflow.Exit{Code: 1}
	case report.Unchecked > 0:
		return &cliflow.Exit{Code: 2}
	}
	return nil
}
