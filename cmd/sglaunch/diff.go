package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launch"
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
		Flags: []cli.Flag{modeFlag(plan.ModeServe), jsonFlag,
			&cli.BoolFlag{Name: "group", Usage: "where one operand is rank 0 of a multi-node server running here: compare every rank"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return inputerr.Errorf("diff: want two operands (%s), got %d", diffOperands, c.NArg())
			}
			opA, err := e.diffOperand(c, c.Args().Get(0))
			if err != nil {
				return err
			}
			opB, err := e.diffOperand(c, c.Args().Get(1))
			if err != nil {
				return err
			}
			if c.Bool("group") {
				return e.diffGroup(c, opA, opB)
			}
			differs, err := e.writeDiff(c, opA, opB)
			if err != nil {
				return err
			}
			if differs {
				return &statusError{code: 1}
			}
			return nil
		},
	}
}

// writeDiff compares two operands and prints the difference; it reports
// whether a perf-relevant setting differs.
func (e *env) writeDiff(c *cli.Context, opA, opB operand) (bool, error) {
	a, b, rows := diffOf(c, opA, opB)
	if c.Bool("json") {
		if err := writeJSON(e.stdout, diffJSON(a, b, rows)); err != nil {
			return false, err
		}
	} else if err := verify.WriteDiff(e.stdout, a, b, rows); err != nil {
		return false, err
	}
	return verify.PerfDiffers(rows), nil
}

// diffOf compares two operands.
func diffOf(c *cli.Context, opA, opB operand) (plan.Side, plan.Side, []plan.DiffRow) {
	a, b := opA.side(c, opB), opB.side(c, opA)
	return a, b, plan.Diff(a, b)
}

// diffJSON is one comparison as --json prints it.
func diffJSON(a, b plan.Side, rows []plan.DiffRow) map[string]any {
	return map[string]any{"a": a.Label, "b": b.Label, "a_fingerprint": a.Fingerprint, "b_fingerprint": b.Fingerprint, "differences": rows}
}

// operand is one side of diff: a plan (a profile's or a bench record's)
// or a running deployment.
type operand struct {
	plan  plan.Side       // a plan's side
	exp   verify.Expected // the same plan, as verify expects it
	obs   *verify.Observation
	label string // a deployment's
	// state is a deployment's sglaunch launch, when one runs it.
	state *launch.State
}

// side reduces the operand for plan.Diff. Against a deployment, both are
// compared as verify compares them (B3): the deployment is read for the
// variables the plan sets beside the managed ones (PYTHONPATH too), and
// the plan's interpreter is resolved to what it runs, with the SGLang
// version it imports, so that a pyenv shim equals the interpreter it
// hands off to.
func (o operand) side(c *cli.Context, other operand) plan.Side {
	if o.obs != nil {
		managed, planned := plan.DefaultManaged, map[string]string(nil)
		if other.obs == nil {
			managed, planned = other.exp.Managed, other.plan.Env
		}
		return verify.SideOfDeployment(o.obs, o.label, managed, planned)
	}
	if other.obs != nil {
		return verify.WithRuntime(o.plan, verify.Resolve(c.Context, o.exp))
	}
	return o.plan
}

// diffOperand resolves one operand of diff.
func (e *env) diffOperand(c *cli.Context, op string) (operand, error) {
	kind, arg, hasKind := strings.Cut(op, ":")
	if !hasKind {
		kind, arg = "", op
	}
	switch kind {
	case "profile":
		return e.profileOperand(c, arg)
	case "record":
		return e.recordOperand(c, arg)
	case "pid", "port":
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 {
			return operand{}, inputerr.Errorf("diff operand %q: want %s:NUMBER", op, kind)
		}
		if kind == "pid" {
			return e.deploymentOperand(c, op, verify.Target{PID: n})
		}
		return e.deploymentOperand(c, op, verify.Target{Port: n})
	case "url":
		return e.deploymentOperand(c, op, verify.Target{URL: arg})
	case "unit":
		return e.deploymentOperand(c, op, verify.Target{Unit: arg})
	case "running":
		return e.deploymentOperand(c, op, verify.Target{Profile: arg})
	case "":
		if op == "running" {
			return e.deploymentOperand(c, op, verify.Target{})
		}
		o, err := e.profileOperand(c, op)
		if err == nil || !errors.Is(err, profiles.ErrNotFound) || profiles.IsPath(op) {
			return o, err
		}
		o, rerr := e.recordOperand(c, op)
		if rerr != nil {
			return operand{}, inputerr.Errorf("diff operand %q is neither a profile nor a bench record; write one of %s", op, diffOperands)
		}
		return o, nil
	}
	return operand{}, inputerr.Errorf("diff operand %q: unknown kind %q; write one of %s", op, kind, diffOperands)
}

func (e *env) recordOperand(c *cli.Context, id string) (operand, error) {
	rec, label, err := e.recordWithPlan(c, id)
	if err != nil {
		return operand{}, err
	}
	exp := verify.FromView(*rec.Plan, label, true)
	exp.SGLang = rec.SGLang
	return operand{plan: plan.SideOfView(*rec.Plan, label), exp: exp}, nil
}

func (e *env) profileOperand(c *cli.Context, ref string) (operand, error) {
	s, err := e.settings(c)
	if err != nil {
		return operand{}, err
	}
	p, err := e.finder(s).Load(ref)
	if err != nil {
		return operand{}, err
	}
	mode := c.String("mode")
	pl, err := plan.Resolve(plan.Request{Profile: p, Mode: mode, Config: s, Environ: e.environ(), LookPath: e.lookPath, SimDir: e.simDir(c)})
	if err != nil {
		return operand{}, err
	}
	label := fmt.Sprintf("profile %s (%s)", pl.Profile, mode)
	return operand{plan: pl.Side(label), exp: verify.FromPlan(pl, label)}, nil
}

func (e *env) deploymentOperand(c *cli.Context, op string, t verify.Target) (operand, error) {
	if err := needsLinux("diff of a running deployment"); err != nil {
		return operand{}, err
	}
	s, err := e.settings(c)
	if err != nil {
		return operand{}, err
	}
	t.RuntimeDir = statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv)
	l, err := verify.Locate(c.Context, t)
	if err != nil {
		return operand{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	if err := verify.CheckReady(c.Context, l); err != nil {
		return operand{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	if err := verify.CheckPort(l); err != nil {
		return operand{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	o, err := verify.Observe(c.Context, l.ServerPID, l.URL, plan.DefaultManaged, e.getenv("OPENAI_API_KEY"))
	if err != nil {
		return operand{}, inputerr.Wrap(fmt.Errorf("diff %s: %w", op, err))
	}
	return operand{obs: o, label: "deployment " + l.How, state: l.State}, nil
}
