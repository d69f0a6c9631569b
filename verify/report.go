package verify

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/plan"
)

// Report is the outcome of one verify.
type Report struct {
	Expected Expected     `json:"expected"`
	Observed *Observation `json:"observed"`
	Rows     []plan.Row   `json:"rows"`
	// Drift counts the perf-relevant rows that are not MATCH.
	Drift int `json:"drift"`
	// SGLangTables says which generated SGLang tables judged the variables
	// SGLang writes itself and the flags' server_info fields (WARN when
	// not the deployment's version's).
	SGLangTables string `json:"sglang_tables,omitempty"`
	// Notes are what the judgement adds to the observation's notes (a
	// unit that pins another interpreter).
	Notes []string `json:"notes,omitempty"`
}

// OK reports whether every perf-relevant setting matches.
func (r *Report) OK() bool { return r.Drift == 0 }

// WriteJSON writes the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	r.SGLangTables = tablesNote(deploymentVersion(r.Expected, r.Observed))
	return jsonout.Write(w, r)
}

// WriteText writes the report as a table per group and a verdict line.
func (r *Report) WriteText(w io.Writer) error {
	o := r.Observed
	fmt.Fprintf(w, "expected: %s", r.Expected.Label)
	if r.Expected.Fingerprint != "" {
		fmt.Fprintf(w, " (fingerprint %s)", short(r.Expected.Fingerprint))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "observed: %s\n", o.describe())
	for _, note := range append(append(o.notes(), r.Notes...), tablesNote(deploymentVersion(r.Expected, o))) {
		fmt.Fprintf(w, "note:     %s\n", note)
	}
	for _, g := range []string{plan.Perf, plan.Neutral} {
		var rows []plan.Row
		for _, row := range r.Rows {
			if row.Group == g {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", g)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STATUS\tSETTING\tEXPECTED\tOBSERVED\tWHERE")
		for _, row := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", row.Status, row.Setting, dash(row.A), dash(row.B), row.WhereText())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if r.OK() {
		_, err := fmt.Fprintf(w, "\nresult: MATCH: every perf-relevant setting is as expected\n")
		return err
	}
	_, err := fmt.Fprintf(w, "\nresult: DRIFT: %d perf-relevant setting(s) differ from %s\n", r.Drift, r.Expected.Label)
	return err
}

func (o *Observation) describe() string {
	var parts []string
	if srv, ok := o.Server(); ok {
		parts = append(parts, fmt.Sprintf("server pid %d (%s) and %d descendant(s)", srv.PID, strings.Join(firstN(srv.Argv, 3), " "), len(o.Procs)-1))
	}
	if o.ServerInfoAt != "" {
		s := "server_info from " + o.URL + o.ServerInfoAt
		if o.Version != "" {
			s += " (SGLang " + o.Version + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

func (o *Observation) notes() []string {
	var out []string
	if o.ServerInfoErr != "" {
		out = append(out, "server_info unavailable: "+o.ServerInfoErr)
	}
	if o.SiteErr != "" {
		out = append(out, "python start-up probe failed: "+o.SiteErr)
	}
	for _, p := range o.Procs {
		if p.EnvErr != "" {
			out = append(out, p.EnvErr)
		}
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
