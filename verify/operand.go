package verify

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/plan"
)

// Operands says how diff's operands are written.
const Operands = "profile:NAME|PATH, record:ID, pid:N, port:N, url:URL, unit:NAME or running[:PROFILE]; a bare word is a profile, else a record"

// Operand is one side of diff: a plan (a profile's or a bench record's)
// or a running deployment.
type Operand struct {
	Op      string // as written
	Heading Heading
	Side    plan.Side // a plan's
	Exp     Expected  // the same plan, as verify expects it
	// Target is a deployment's, read (ReadOperands) once both operands
	// are known: the other's plan gives the key and what to watch.
	Target *Target
	Dep    *Deployment
	Obs    *Observation // what this host observed of it
}

// Operand kinds, as ParseOperand reads them.
const (
	OperandProfile    = "profile"
	OperandRecord     = "record"
	OperandDeployment = "deployment"
	OperandBare       = "" // a profile, else a record
)

// ParseOperand reads how an operand is written: its kind, the profile or
// record it names (arg), or the deployment it targets (t, for
// OperandDeployment).
func ParseOperand(op string) (kind, arg string, t Target, err error) {
	kind, arg, hasKind := strings.Cut(op, ":")
	if !hasKind {
		kind, arg = "", op
	}
	switch kind {
	case "":
		if op == "running" {
			return OperandDeployment, "", Target{}, nil
		}
		return OperandBare, op, Target{}, nil
	case "profile", "record":
		return kind, arg, Target{}, nil
	case "pid", "port":
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 {
			return "", "", Target{}, inputerr.Errorf("diff operand %q: want %s:NUMBER", op, kind)
		}
		if kind == "pid" {
			return OperandDeployment, arg, Target{PID: n}, nil
		}
		return OperandDeployment, arg, Target{Port: n}, nil
	case "url":
		return OperandDeployment, arg, Target{URL: arg}, nil
	case "unit":
		return OperandDeployment, arg, Target{Unit: arg}, nil
	case "running":
		return OperandDeployment, arg, Target{Profile: arg}, nil
	}
	return "", "", Target{}, inputerr.Errorf("diff operand %q: unknown kind %q; write one of %s", op, kind, Operands)
}

// PlanOperand is a plan's operand: p resolved, or a record's view.
func PlanOperand(op string, side plan.Side, exp Expected) Operand {
	return Operand{Op: op, Heading: Heading{Label: side.Label, Fingerprint: side.Fingerprint}, Side: side, Exp: exp}
}

// Judge compares two operands by the one judgement: two plans by
// plan.Diff; a plan and a deployment as verify judges them, every
// process of the deployment (A: the plan); two deployments with the
// first's server as the expected side.
func Judge(a, b Operand) []plan.Row {
	switch {
	case a.Obs == nil && b.Obs == nil:
		return plan.Diff(a.Side, b.Side)
	case a.Obs == nil:
		return Compare(a.Exp, b.Obs).Differences()
	case b.Obs == nil:
		rows := Compare(b.Exp, a.Obs).Differences()
		for i := range rows {
			rows[i] = rows[i].Swapped()
		}
		return rows
	}
	return Compare(ExpectedOf(a.Obs, a.Heading.Label), b.Obs).Differences()
}

// DiffJSON is one comparison as diff --json prints it.
func DiffJSON(a, b Heading, rows []plan.Row) map[string]any {
	return map[string]any{"a": a.Label, "b": b.Label, "a_fingerprint": a.Fingerprint, "b_fingerprint": b.Fingerprint, "differences": rows}
}

// ReadOperands reads the deployment operands (group: every rank of one),
// each with the other operand's plan as its expected side, and resolves
// a plan compared with a deployment to what its interpreter runs, as
// verify does.
func ReadOperands(ctx context.Context, a, b *Operand, group bool) error {
	for _, x := range []struct{ o, other *Operand }{{a, b}, {b, a}} {
		if x.o.Target == nil {
			continue
		}
		t := *x.o.Target
		t.Group = group
		var exp *Expected
		if x.other.Target == nil {
			exp = &x.other.Exp
		}
		d, err := Read(ctx, t, exp)
		if err != nil {
			return inputerr.Wrap(fmt.Errorf("diff %s: %w", x.o.Op, err))
		}
		x.o.Dep, x.o.Obs = d, d.Observed
		x.o.Heading = Heading{Label: "deployment " + d.How}
	}
	for _, x := range []struct{ o, other *Operand }{{a, b}, {b, a}} {
		if x.o.Target == nil && x.other.Target != nil {
			x.o.Exp = Resolve(ctx, x.o.Exp)
		}
	}
	return nil
}

// Diff is diff's whole comparison of two operands: it reads the
// deployment operands (ReadOperands) and judges them, one comparison
// (Judge), or with group one a rank (DiffGroup), where exactly one
// operand must be a deployment.
func Diff(ctx context.Context, a, b *Operand, group bool) ([]RankDiff, error) {
	if group && (a.Target == nil) == (b.Target == nil) {
		return nil, inputerr.Errorf("diff --group: want one running deployment (running, pid:, port:, unit:) and one plan (a profile or a record)")
	}
	if err := ReadOperands(ctx, a, b, group); err != nil {
		return nil, err
	}
	if group {
		return DiffGroup(*a, *b)
	}
	return []RankDiff{{A: a.Heading, B: b.Heading, Rows: Judge(*a, *b)}}, nil
}

// RankDiff is one rank's comparison in a diff --group.
type RankDiff struct {
	Rank int
	A, B Heading
	Rows []plan.Row
}

// DiffGroup compares the other operand with every rank of the multi-node
// server whose rank 0 one operand is (read by ReadOperands with group):
// rank 0 as observed here, every worker as its sglaunch observed itself.
func DiffGroup(opA, opB Operand) ([]RankDiff, error) {
	dep, depFirst := opA, true
	if opA.Target == nil {
		dep, depFirst = opB, false
	}
	ranks := []Operand{{Heading: Heading{Label: "rank 0 (" + dep.Heading.Label + ")"}, Obs: dep.Obs}}
	for _, r := range dep.Dep.Ranks {
		if r.Err != nil {
			return nil, fmt.Errorf("diff --group: rank %d on %s: %w", r.Rank, r.Node, r.Err)
		}
		ranks = append(ranks, Operand{Heading: Heading{Label: fmt.Sprintf("rank %d on %s", r.Rank, r.Node)}, Obs: r.Observed})
	}
	var out []RankDiff
	for i, r := range ranks {
		a, b := r, opB
		if !depFirst {
			a, b = opA, r
		}
		d := RankDiff{A: a.Heading, B: b.Heading, Rows: Judge(a, b)}
		if i > 0 {
			d.Rank = dep.Dep.Ranks[i-1].Rank
		}
		out = append(out, d)
	}
	return out, nil
}

// WriteDiffs prints diff's comparisons, as a table or, with asJSON, as
// JSON (group: one document with a comparison per rank), and says
// whether a perf-relevant setting differs in any.
func WriteDiffs(w io.Writer, diffs []RankDiff, group, asJSON bool) (differs bool, err error) {
	var all []map[string]any
	for i, d := range diffs {
		differs = differs || PerfDiffers(d.Rows)
		switch {
		case asJSON && !group:
			err = jsonout.Write(w, DiffJSON(d.A, d.B, d.Rows))
		case asJSON:
			j := DiffJSON(d.A, d.B, d.Rows)
			j["rank"] = d.Rank
			all = append(all, j)
		default:
			if i > 0 {
				fmt.Fprintln(w)
			}
			err = WriteDiff(w, d.A, d.B, d.Rows)
		}
		if err != nil {
			return differs, err
		}
	}
	if asJSON && group {
		err = jsonout.Write(w, map[string]any{"ranks": all})
	}
	return differs, err
}
