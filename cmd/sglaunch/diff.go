package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
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
			if err := e.readOperands(c, &opA, &opB, false); err != nil {
				return err
			}
			differs, err := e.writeDiff(c, opA, opB)
			if err != nil {
				return err
			}
			if differs {
				return &cliflow.Exit{Code: 1}
			}
			return nil
		},
	}
}

// writeDiff compares two operands and prints the difference; it reports
// whether a perf-relevant setting differs.
func (e *env) writeDiff(c *cli.Context, opA, opB operand) (bool, error) {
	rows := judge(opA, opB)
	if c.Bool("json") {
		if err := writeJSON(e.stdout, diffJSON(opA.heading, opB.heading, rows)); err != nil {
			return false, err
		}
	} else if err := verify.WriteDiff(e.stdout, opA.heading, opB.heading, rows); err != nil {
		return false, err
	}
	return verify.PerfDiffers(rows), nil
}

// judge compares two operands by the one judgement: two plans by
// plan.Diff; a plan and a deployment as verify judges them, every
// process of the deployment (A: the plan); two deployments with the
// first's server as the expected side.
func judge(a, b operand) []plan.Row {
	switch {
	case a.obs == nil && b.obs == nil:
		return plan.Diff(a.side, b.side)
	case a.obs == nil:
		return verify.Compare(a.exp, b.obs).Differences()
	case b.obs == nil:
		rows := verify.Compare(b.exp, a.obs).Differences()
		for i := range rows {
			rows[i] = rows[i].Swapped()
		}
		return rows
	}
	return verify.Compare(verify.ExpectedOf(a.obs, a.heading.Label), b.obs).Differences()
}

// diffJSON is one comparison as --json prints it.
func diffJSON(a, b verify.Heading, rows []plan.Row) map[string]any {
	return map[string]any{"a": a.Label, "b": b.Label, "a_fingerprint": a.Fingerprint, "b_fingerprint": b.Fingerprint, "differences": rows}
}

// operand is one side of diff: a plan (a profile's or a bench record's)
// or a running deployment.
type operand struct {
	op      string // as written
	heading verify.Heading
	side    plan.Side       // a plan's
	exp     verify.Expected // the same plan, as verify expects it
	// target is a deployment's, read (readOperands) once both operands
	// are known: the other's plan gives the key and what to watch.
	target *verify.Target
	dep    *verify.Deployment
	obs    *verify.Observation // what this host observed of it
}

// readOperands reads the deployment operands (group: every rank of one),
// each with the other operand's plan as its expected side, and resolves
// a plan compared with a deployment to what its interpreter runs, as
// verify does.
func (e *env) readOperands(c *cli.Context, a, b *operand, group bool) error {
	for _, x := range []struct{ o, other *operand }{{a, b}, {b, a}} {
		if x.o.target == nil {
			continue
		}
		t := *x.o.target
		t.Group = group
		var exp *verify.Expected
		if x.other.target == nil {
			exp = &x.other.exp
		}
		d, err := verify.Read(c.Context, t, exp)
		if err != nil {
			return inputerr.Wrap(fmt.Errorf("diff %s: %w", x.o.op, err))
		}
		x.o.dep, x.o.obs = d, d.Observed
		x.o.heading = verify.Heading{Label: "deployment " + d.How}
	}
	for _, x := range []struct{ o, other *operand }{{a, b}, {b, a}} {
		if x.o.target == nil && x.other.target != nil {
			x.o.exp = verify.Resolve(c.Context, x.o.exp)
		}
	}
	return nil
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
	side := plan.SideOfView(*rec.Plan, label)
	return operand{op: "record:" + id, heading: verify.Heading{Label: label, Fingerprint: side.Fingerprint}, side: side, exp: exp}, nil
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
	return operand{op: ref, heading: verify.Heading{Label: label, Fingerprint: pl.Fingerprint}, side: pl.Side(label), exp: verify.FromPlan(pl, label)}, nil
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
	t.APIKey = e.getenv("OPENAI_API_KEY")
	return operand{op: op, target: &t}, nil
}
