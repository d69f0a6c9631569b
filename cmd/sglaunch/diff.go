package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/verify"
)

const diffOperands = "profile:NAME|PATH, record:ID, pid:N, port:N, url:URL, unit:NAME or running[:PROFILE]; a bare word is a profile, else a record"

func diffCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare any two of: a profile's plan, a bench record, a running deployment (exit 0 same, 1 perf settings differ)",
		ArgsUsage: "A B   (each " + diffOperands + ")",
		Flags:     []cli.Flag{modeFlag(plan.ModeServe), jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return inputerr.Errorf("diff: want two operands (%s), got %d", diffOperands, c.NArg())
			}
			a, err := e.diffSide(c, c.Args().Get(0))
			if err != nil {
				return err
			}
			b, err := e.diffSide(c, c.Args().Get(1))
			if err != nil {
				return err
			}
			rows := plan.Diff(a, b)
			if c.Bool("json") {
				if err := writeJSON(e.stdout, map[string]any{"a": a.Label, "b": b.Label, "a_fingerprint": a.Fingerprint, "b_fingerprint": b.Fingerprint, "differences": rows}); err != nil {
					return err
				}
			} else if err := verify.WriteDiff(e.stdout, a, b, rows); err != nil {
				return err
			}
			if verify.PerfDiffers(rows) {
				return &statusError{code: 1}
			}
			return nil
		},
	}
}

// diffSide resolves one operand of diff.
func (e *env) diffSide(c *cli.Context, op string) (plan.Side, error) {
	kind, arg, hasKind := strings.Cut(op, ":")
	if !hasKind {
		kind, arg = "", op
	}
	switch kind {
	case "profile":
		return e.profileSide(c, arg)
	case "record":
		v, label, err := e.recordPlan(c, arg)
		if err != nil {
			return plan.Side{}, err
		}
		return plan.SideOfView(v, label), nil
	case "pid", "port":
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 {
			return plan.Side{}, inputerr.Errorf("diff operand %q: want %s:NUMBER", op, kind)
		}
		if kind == "pid" {
			return e.deploymentSide(c, op, verify.Target{PID: n})
		}
		return e.deploymentSide(c, op, verify.Target{Port: n})
	case "url":
		return e.deploymentSide(c, op, verify.Target{URL: arg})
	case "unit":
		return e.deploymentSide(c, op, verify.Target{Unit: arg})
	case "running":
		return e.deploymentSide(c, op, verify.Target{Profile: arg})
	case "":
		if op == "running" {
			return e.deploymentSide(c, op, verify.Target{})
		}
		side, err := e.profileSide(c, op)
		if err == nil || !errors.Is(err, profiles.ErrNotFound) || profiles.IsPath(op) {
			return side, err
		}
		v, label, rerr := e.recordPlan(c, op)
		if rerr != nil {
			return plan.Side{}, inputerr.Errorf("diff operand %q is neither a profile nor a bench record; write one of %s", op, diffOperands)
		}
		return plan.SideOfView(v, label), nil
	}
	return plan.Side{}, inputerr.Errorf("diff operand %q: unknown kind %q; write one of %s", op, kind, diffOperands)
}

func (e *env) profileSide(c *cli.Context, ref string) (plan.Side, error) {
	s, err := e.settings(c)
	if err != nil {
		return plan.Side{}, err
	}
	p, err := e.finder(s).Load(ref)
	if err != nil {
		return plan.Side{}, err
	}
	mode := c.String("mode")
	pl, err := plan.Resolve(plan.Request{Profile: p, Mode: mode, Config: s, Environ: e.environ(), LookPath: e.lookPath, SimDir: e.simDir(c)})
	if err != nil {
		return plan.Side{}, err
	}
	return pl.Side(fmt.Sprintf("profile %s (%s)", pl.Profile, mode)), nil
}

func (e *env) deploymentSide(c *cli.Context, op string, t verify.Target) (plan.Side, error) {
	if err := needsLinux("diff of a running deployment"); err != nil {
		return plan.Side{}, err
	}
	s, err := e.settings(c)
	if err != nil {
		return plan.Side{}, err
	}
	t.RuntimeDir = statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv)
	l, err := verify.Locate(c.Context, t)
	if err != nil {
		return plan.Side{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	if err := verify.CheckReady(c.Context, l); err != nil {
		return plan.Side{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	if err := verify.CheckPort(l); err != nil {
		return plan.Side{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	o, err := verify.Observe(c.Context, l.ServerPID, l.URL, plan.DefaultManaged, e.getenv("OPENAI_API_KEY"))
	if err != nil {
		return plan.Side{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	return verify.SideOfDeployment(o, "deployment "+l.How, plan.DefaultManaged), nil
}
