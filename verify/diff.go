package verify

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/plan"
)

// ExpectedOf takes an observed deployment's server as the expected side,
// for a diff of two deployments: its command line, the interpreter it
// runs, the SGLang it reports, and the value it sees of each managed
// variable (a site hook's or nccl.conf's where those set it).
func ExpectedOf(o *Observation, label string) Expected {
	e := Expected{Label: label, Env: map[string]string{}, Managed: plan.DefaultManaged, Interpreter: o.Interpreter, SGLang: o.Version}
	srv, ok := o.Server()
	if !ok {
		return e
	}
	e.Argv = srv.Argv
	if len(srv.Argv) > 0 {
		e.Python = srv.Argv[0]
	}
	for _, name := range slices.Sorted(maps.Keys(envNames(o, srv))) {
		if !plan.MatchManaged(e.Managed, name) {
			continue
		}
		if eff := effectiveEnv(o, name, srv); eff.present {
			e.Env[name] = eff.value
			e.EnvOrder = append(e.EnvOrder, name)
		}
	}
	return e
}

// Heading names one side of a diff.
type Heading struct {
	Label       string
	Fingerprint string // "" when the side has none (a deployment)
}

// WriteDiff prints the rows as a table under a header naming both sides.
// Against a deployment (rows that say where they were seen), each row
// shows its status and WHERE cell too, as verify's report does.
func WriteDiff(w io.Writer, a, b Heading, rows []plan.Row) error {
	fmt.Fprintf(w, "A: %s%s\nB: %s%s\n", a.Label, fp(a.Fingerprint), b.Label, fp(b.Fingerprint))
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "\nno differences")
		return err
	}
	observed := slices.ContainsFunc(rows, func(r plan.Row) bool { return r.Where != "" })
	var tw *tabwriter.Writer
	group := ""
	for i, r := range rows {
		if i == 0 || r.Group != group {
			if tw != nil {
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			group = r.Group
			fmt.Fprintf(w, "\n%s\n", group)
			tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			if observed {
				fmt.Fprintln(tw, "STATUS\tSETTING\tA\tB\tWHERE")
			} else {
				fmt.Fprintln(tw, "SETTING\tA\tB")
			}
		}
		if observed {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Status, r.Setting, cell(r, r.A, r.InA), cell(r, r.B, r.InB), r.WhereText())
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Setting, cell(r, r.A, r.InA), cell(r, r.B, r.InB))
	}
	return tw.Flush()
}

// cell shows one side of a row: "-" when absent, (set) for a switch,
// "" for an empty variable.
func cell(r plan.Row, v string, present bool) string {
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

// PerfDiffers reports whether any row decides a verdict.
func PerfDiffers(rows []plan.Row) bool { return len(plan.PerfRows(rows)) > 0 }
