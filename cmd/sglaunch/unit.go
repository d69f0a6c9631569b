package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/selfexe"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/systemd"
)

func unitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "unit",
		Usage: "print a systemd service unit that runs `sglaunch serve` for a profile",
		Description: "Type=notify: systemd sees the service started only once /health answers 200. The unit has no\n" +
			"Environment= lines: the server's flags and environment live in the profile. The interpreter is\n" +
			"pinned as your environment resolves it (what bench ran), and the header's fingerprint is the one\n" +
			"the service computes: SGLAUNCH_SET, SGLAUNCH_HOST, SGLAUNCH_PORT and inherit_env variables of\n" +
			"your shell do not reach the service, so they are left out.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "name", Usage: "unit `NAME`, without .service (default sglang-PROFILE)"},
			&cli.StringFlag{Name: "user", Usage: "run the server as `USER` (default root)"},
			&cli.BoolFlag{Name: "harden", Usage: "add the sandboxing a CUDA server tolerates (each option's reason is in the unit)"},
			&cli.BoolFlag{Name: "user-unit", Usage: "write a unit for your own systemd (systemctl --user): wanted by default.target, no User=, no limits a user manager would clamp"},
		},
		Before: func(c *cli.Context) error { return systemd.CheckUser(c.String("user"), systemd.LookupAccount) },
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return inputerr.Errorf("unit: unexpected argument %q; the unit runs the profile as it is (set values in the profile, not here)", c.Args().First())
			}
			exe, err := selfexe.Path("unit")
			if err != nil {
				return err
			}
			plan, err := e.unitPlan(c)
			if err != nil {
				return err
			}
			o := systemd.UnitOptions{Exe: exe, Name: c.String("name"), User: c.String("user"), Python: plan.Python, Harden: c.Bool("harden"), UserManager: c.Bool("user-unit")}
			if err := e.warn(systemd.Warnings(plan, o, e.lookupEnv)); err != nil {
				return err
			}
			if o.Harden {
				o.Home = systemd.HomeOf(o.User)
			}
			unit, err := systemd.Unit(plan, o)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(e.stdout, unit)
			return err
		},
	}
}

// unitPlan resolves the plan as the service will: the profile and this
// environment's interpreter (pinned in the unit), but none of the
// settings that live only in the operator's shell, so that the header's
// fingerprint is the one the service computes. Each one dropped is named.
func (e *env) unitPlan(c *cli.Context) (*plan.Plan, error) {
	p, _, err := e.deployPlan(c, "the unit: the service does not see your environment", "the service's environment will not have it (the unit has no Environment= lines)")
	return p, err
}

// deployPlan resolves the plan that a unit or a job file runs, as
// unitPlan says, with the profile it came from. leftOut says where
// SGLAUNCH_SET and friends are left out and why; inheritGone, when not
// empty, why an inherit_env variable set here is not seen there.
func (e *env) deployPlan(c *cli.Context, leftOut, inheritGone string) (*plan.Plan, *profiles.Profile, error) {
	s, err := e.settings(c)
	if err != nil {
		return nil, nil, err
	}
	s, warnings := s.ForDeployment(leftOut)
	if err := e.warn(warnings); err != nil {
		return nil, nil, err
	}
	prof, err := e.loadProfile(c, s)
	if err != nil {
		return nil, nil, err
	}
	if inheritGone != "" {
		if err := e.warn(plan.InheritGone(prof, e.lookupEnv, inheritGone)); err != nil {
			return nil, nil, err
		}
	}
	p, err := plan.Resolve(plan.Request{Profile: prof, Mode: plan.ModeServe, Config: s, LookPath: e.lookPath, SimDir: e.simDir(c)})
	return p, prof, err
}

// warn logs each warning on stderr.
func (e *env) warn(warnings []string) error {
	log, err := logging.New(e.stderr, logging.Text)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		log.Warn(w)
	}
	return nil
}
