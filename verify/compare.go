package verify

import "github.com/sglaunch/sglaunch/plan"

// Compare judges an observed deployment against the expected plan: one
// row per setting, in the one row type (A: expected, B: observed).
func Compare(exp Expected, o *Observation) *Report {
	r := &Report{Expected: exp, Observed: o}
	rows := append(compareRuntime(exp, o), compareFlags(exp, o)...)
	rows = append(rows, compareEnv(exp, o)...)
	for _, row := range rows {
		row = row.WithStatus(row.Status)
		if row.Drift() {
			r.Drift++
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// Differences are the rows that are not MATCH: what diff shows of a
// deployment against a plan.
func (r *Report) Differences() []plan.Row {
	var out []plan.Row
	for _, row := range r.Rows {
		if row.Status != plan.Match {
			out = append(out, row)
		}
	}
	plan.SortByGroup(out)
	return out
}
