package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/verify"
)

func diffCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare any two of: a profile's plan, a bench record, a running deployment (exit 0 same, 1 perf settings differ)",
		ArgsUsage: "A B   (each " + verify.Operands + ")",
		Flags: []cli.Flag{modeFlag(plan.ModeServe), jsonFlag,
			&cli.BoolFlag{Name: "group", Usage: "where one operand is rank 0 of a multi-node server running here: compare every rank"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return inputerr.Errorf("diff: want two operands (%s), got %d", verify.Operands, c.NArg())
			}
			opA, err := e.diffOperand(c, c.Args().Get(0))
			if err != nil {
				return err
			}
			opB, err := e.diffOperand(c, c.Args().Get(1))
			if err != nil {
				return err
			}
			diffs, err := verify.Diff(c.Context, &opA, &opB, c.Bool("group"))
			if err != nil {
				return err
			}
			differs, err := verify.WriteDiffs(e.stdout, diffs, c.Bool("group"), c.Bool("json"))
			if err != nil || !differs {
				return err
			}
			return &cliflow.Exit{Code: 1}
		},
	}
}

// diffOperand resolves one operand of diff: a bare word is a profile,
// else a record.
func (e *env) diffOperand(c *cli.Context, op string) (verify.Operand, error) {
	kind, arg, t, err := verify.ParseOperand(op)
	if err != nil {
		return verify.Operand{}, err
	}
	switch kind {
	case verify.OperandProfile:
		return e.profileOperand(c, arg)
	case verify.OperandRecord:
		return e.recordOperand(c, arg)
	case verify.OperandDeployment:
		return e.deploymentOperand(c, op, t)
	}
	o, err := e.profileOperand(c, op)
	if err == nil || !errors.Is(err, profiles.ErrNotFound) || profiles.IsPath(op) {
		return o, err
	}
	o, rerr := e.recordOperand(c, op)
	if rerr != nil {
		return verify.Operand{}, inputerr.Errorf("diff operand %q is neither a profile nor a bench record; write one of %s", op, verify.Operands)
	}
	return o, nil
}

func (e *env) recordOperand(c *cli.Context, id string) (verify.Operand, error) {
	rec, err := e.record(c, id)
	if err != nil {
		return verify.Operand{}, err
	}
	exp, side, err := rec.Expected()
	if err != nil {
		return verify.Operand{}, err
	}
	return verify.PlanOperand("record:"+id, side, exp), nil
}

func (e *env) profileOperand(c *cli.Context, ref string) (verify.Operand, error) {
	s, err := e.settings(c)
	if err != nil {
		return verify.Operand{}, err
	}
	p, err := e.finder(s).Load(ref)
	if err != nil {
		return verify.Operand{}, err
	}
	mode := c.String("mode")
	pl, err := plan.Resolve(plan.Request{Profile: p, Mode: mode, Config: s, Environ: e.environ(), LookPath: e.lookPath, SimDir: e.simDir(c)})
	if err != nil {
		return verify.Operand{}, err
	}
	label := fmt.Sprintf("profile %s (%s)", pl.Profile, mode)
	return verify.PlanOperand(ref, pl.Side(label), verify.FromPlan(pl, label)), nil
}

func (e *env) deploymentOperand(c *cli.Context, op string, t verify.Target) (verify.Operand, error) {
	if err := needsLinux("diff of a running deployment"); err != nil {
		return verify.Operand{}, err
	}
	s, err := e.settings(c)
	if err != nil {
		return verify.Operand{}, err
	}
	t.RuntimeDir = statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv)
	t.APIKey = e.getenv("OPENAI_API_KEY")
	return verify.Operand{Op: op, Target: &t}, nil
}
