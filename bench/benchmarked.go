package bench

import "github.com/sglaunch/sglaunch/plan"

// nearestScan bounds how many of the newest records Benchmarked reads to
// find the nearest one when none has the plan's fingerprint.
const nearestScan = 200

// Benchmarked is what the records say about a plan about to be served.
type Benchmarked struct {
	// Empty: there are no records at all.
	Empty bool
	// Exact is the newest successful record with the plan's fingerprint.
	Exact *Record
	// Nearest, when there is no exact record, is the record whose plan
	// differs from this one in the fewest perf-relevant settings, and
	// Differences are those settings (A: this plan, B: the record).
	Nearest     *Record
	Differences []plan.Row
}

// Benchmarked finds the benchmark this plan reproduces: the newest
// successful record with the same fingerprint (recomputed from each
// record's plan); when there is none, the nearest record with a known
// plan among the newest nearestScan.
func (s *Store) Benchmarked(p *plan.Plan) (Benchmarked, error) {
	entries, err := s.List()
	if err != nil || len(entries) == 0 {
		return Benchmarked{Empty: err == nil}, err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		en := entries[i]
		if en.Err == "" && en.Status == StatusOK && en.Fingerprint == p.Fingerprint {
			if rec, err := Load(en.Path); err == nil {
				return Benchmarked{Exact: rec}, nil
			}
		}
	}
	want := p.Side("plan")
	var out Benchmarked
	for i := len(entries) - 1; i >= 0 && i >= len(entries)-nearestScan; i-- {
		if entries[i].Err != "" {
			continue
		}
		rec, err := Load(entries[i].Path)
		if err != nil || rec.Plan == nil {
			continue
		}
		rows := plan.PerfRows(plan.Diff(want, plan.SideOfView(*rec.Plan, "record")))
		if out.Nearest == nil || len(rows) < len(out.Differences) {
			out.Nearest, out.Differences = rec, rows
		}
	}
	return out, nil
}
