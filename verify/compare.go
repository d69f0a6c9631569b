package verify

// Compare checks an observed deployment against the expected plan.
func Compare(exp Expected, o *Observation) *Report {
	r := &Report{Expected: exp, Observed: o}
	r.Rows = append(compareFlags(exp, o), compareEnv(exp, o)...)
	for _, row := range r.Rows {
		if row.Group == Perf && row.Status != Match && row.Status != Overridden && row.Status != Unknown {
			r.Drift++
		}
	}
	return r
}
