package verify

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/plan"
)

// SideOf reduces an expected plan to what plan.Diff compares, its values
// as it holds them: real from a plan, secrets masked from a record
// (plan.Diff compares a masked value as unknown).
func SideOf(e Expected) plan.Side {
	s := plan.Side{Label: e.Label, Fingerprint: e.Fingerprint, Python: e.Python, Args: plan.FlagMap(plan.ArgvTail(e.Argv), true), Env: map[string]string{}}
	for k, v := range e.Env {
		s.Env[k] = v
	}
	return s
}

// SideOfDeployment reduces an observed deployment to what plan.Diff
// compares: the server's argv and what the server process sees of each
// managed variable.
func SideOfDeployment(o *Observation, label string, managed []string) plan.Side {
	s := plan.Side{Label: label, Args: map[string][]string{}, Env: map[string]string{}}
	srv, ok := o.Server()
	if !ok {
		return s
	}
	if len(srv.Argv) > 0 {
		s.Python = srv.Argv[0]
	}
	s.Args = plan.FlagMap(plan.ArgvTail(srv.Argv), true)
	for name := range envNames(o, srv) {
		if !plan.MatchManaged(managed, name) {
			continue
		}
		if eff := effectiveEnv(o, name, srv); eff.present {
			s.Env[name] = eff.value // real: plan.Diff masks for display
		}
	}
	return s
}

// WriteDiff prints the rows as a table under a header naming both sides.
func WriteDiff(w io.Writer, a, b plan.Side, rows []plan.DiffRow) error {
	fmt.Fprintf(w, "A: %s%s\nB: %s%s\n", a.Label, fp(a.Fingerprint), b.Label, fp(b.Fingerprint))
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "\nno differences")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	group := ""
	for _, r := range rows {
		if r.Group != group {
			group = r.Group
			fmt.Fprintf(tw, "\n%s\t\t\n", group)
			fmt.Fprintln(tw, "SETTING\tA\tB")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Setting, cell(r, r.A, r.InA), cell(r, r.B, r.InB))
	}
	return tw.Flush()
}

// cell shows one side of a row: "-" when absent, (set) for a switch,
// "" for an empty variable.
func cell(r plan.DiffRow, v string, present bool) string {
	switch {
	case !present:
		return "-"
	case v == "" && r.Kind == "flag":
		return "(set)"
	case v == "":
		return `""`
	}
	return v
}

func fp(f string) string {
	if f == "" {
		return ""
	}
	return " (fingerprint " + short(f) + ")"
}

// PerfDiffers reports whether any row is perf-relevant.
func PerfDiffers(rows []plan.DiffRow) bool { return len(plan.PerfRows(rows)) > 0 }
