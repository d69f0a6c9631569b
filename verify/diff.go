package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

// Side is one thing `sglaunch diff` compares: a plan, a record's plan or
// a running deployment, reduced to its interpreter, flags and variables.
type Side struct {
	Label       string
	Fingerprint string
	Python      string
	Args        map[string][]string // canonical flag → values
	Env         map[string]string   // managed variables (and those the plan sets)
}

// SideOf reduces an expected plan to a Side.
func SideOf(e Expected) Side {
	s := Side{Label: e.Label, Fingerprint: e.Fingerprint, Python: e.Python, Args: map[string][]string{}, Env: map[string]string{}}
	for _, u := range canonicalUses(argvTail(e.Argv)) {
		s.Args[u.name] = u.values
	}
	for k, v := range e.Env {
		s.Env[k] = redact.Value(k, v)
	}
	return s
}

// SideOfDeployment reduces an observed deployment to a Side: the server's
// argv and what the server process sees of each managed variable.
func SideOfDeployment(o *Observation, label string, managed []string) Side {
	s := Side{Label: label, Args: map[string][]string{}, Env: map[string]string{}}
	srv, ok := o.Server()
	if !ok {
		return s
	}
	if len(srv.Argv) > 0 {
		s.Python = srv.Argv[0]
	}
	for _, u := range canonicalUses(argvTail(srv.Argv)) {
		s.Args[u.name] = u.values
	}
	names := map[string]bool{}
	for k := range srv.Env {
		names[k] = true
	}
	for _, c := range srv.NCCLConf {
		names[c.Name] = true
	}
	for _, c := range o.Site {
		names[c.Name] = true
	}
	for name := range names {
		if !plan.MatchManaged(managed, name) {
			continue
		}
		if eff := effectiveEnv(o, name, srv); eff.present {
			s.Env[name] = redact.Value(name, eff.value)
		}
	}
	return s
}

// DiffRow is one setting on which two sides differ ("" = absent).
type DiffRow struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Setting string `json:"setting"`
	A       string `json:"a"`
	B       string `json:"b"`
}

// Diff lists the settings on which a and b differ, perf-relevant first.
func Diff(a, b Side) []DiffRow {
	var rows []DiffRow
	if a.Python != "" && b.Python != "" && a.Python != b.Python {
		rows = append(rows, DiffRow{Group: Perf, Kind: "python", Setting: "python", A: a.Python, B: b.Python})
	}
	for _, name := range sortedKeys(a.Args, b.Args) {
		va, okA := a.Args[name]
		vb, okB := b.Args[name]
		if okA == okB && sameValues(va, vb) {
			continue
		}
		rows = append(rows, DiffRow{Group: groupOf(name), Kind: "flag", Setting: name, A: flagText(name, va, okA), B: flagText(name, vb, okB)})
	}
	for _, name := range sortedKeys(a.Env, b.Env) {
		va, okA := a.Env[name]
		vb, okB := b.Env[name]
		if okA == okB && va == vb {
			continue
		}
		rows = append(rows, DiffRow{Group: Perf, Kind: "env", Setting: name, A: envText(va, okA), B: envText(vb, okB)})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Group == Perf && rows[j].Group != Perf })
	return rows
}

func flagText(name string, v []string, ok bool) string {
	switch {
	case !ok:
		return ""
	case len(v) == 0:
		return "(set)"
	}
	return strings.Join(redact.Argv(append([]string{name}, v...))[1:], " ")
}

func envText(v string, ok bool) string {
	if !ok {
		return ""
	}
	if v == "" {
		return `""`
	}
	return v
}

// WriteDiff prints the rows as a table under a header naming both sides.
func WriteDiff(w io.Writer, a, b Side, rows []DiffRow) error {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Setting, dash(r.A), dash(r.B))
	}
	return tw.Flush()
}

func fp(f string) string {
	if f == "" {
		return ""
	}
	return " (fingerprint " + short(f) + ")"
}

// PerfDiffers reports whether any row is perf-relevant.
func PerfDiffers(rows []DiffRow) bool {
	for _, r := range rows {
		if r.Group == Perf {
			return true
		}
	}
	return false
}
