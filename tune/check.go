package tune

import (
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// Check readies a tune's search before any launch: it selects the
// objective's workload among the base profile's own (fromProfile) and
// the built-in ones and prepares its data set, resolves the base plan,
// which must fit on this host, and resolves every value of the space, so
// that a bad value is an input error now, not a failed point an hour in.
func Check(rec *Record, fromProfile []workload.Workload, resolve func(sets []string) (*plan.Plan, error)) (workload.Workload, *plan.Plan, error) {
	ws, err := workload.Select([]string{rec.Space.Objective.Workload}, fromProfile)
	if err != nil {
		return workload.Workload{}, nil, err
	}
	if err := workload.Prepare(ws); err != nil {
		return workload.Workload{}, nil, err
	}
	base, err := resolve(nil)
	if err != nil {
		return workload.Workload{}, nil, err
	}
	if n := base.MultiNode.Nodes; n > 1 {
		return workload.Workload{}, nil, inputerr.Errorf("profile %s spans %d nodes (multinode.nodes) and tune starts servers on this host only", base.Profile, n)
	}
	for _, p := range rec.Space.Params {
		for _, v := range p.Values {
			if _, err := resolve([]string{p.Key + "=" + v}); err != nil {
				return workload.Workload{}, nil, inputerr.Errorf("%s: parameters.%s: %s: %w", rec.Space.File, p.Key, v, err)
			}
		}
	}
	return ws[0], base, nil
}

// StoreDir is where the tune's bench records go: its own directory when
// a job array shares it, else def (the records of every bench).
func (r *Record) StoreDir(def string) string {
	if r.Shared {
		return r.RecordsDir()
	}
	return def
}
