package tune

import (
	"fmt"

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
	if base.MultiNode.Enabled() {
		return workload.Workload{}, nil, multiNode(base, "")
	}
	for _, p := range rec.Space.Params {
		for _, v := range p.Values {
			pl, err := resolve([]string{p.Key + "=" + v})
			if err != nil {
				return workload.Workload{}, nil, inputerr.Errorf("%s: parameters.%s: %s: %w", rec.Space.File, p.Key, v, err)
			}
			if pl.MultiNode.Enabled() {
				return workload.Workload{}, nil, multiNode(pl, fmt.Sprintf("%s: parameters.%s: %s: ", rec.Space.File, p.Key, v))
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

// multiNode refuses a point that spans nodes: tune starts every point's
// server on one host, as bench does, and a task of tune --slurm's job
// array gets one node. It says what to do instead.
func multiNode(p *plan.Plan, where string) error {
	return inputerr.Errorf("%sprofile %s spans %d nodes (multinode.nodes), and tune starts each point's server on one host, with --slurm too (each task of its job array gets one node): it does not tune multi-node servers. "+
		"Instead, tune on one node a variant of the profile that fits there (multinode.nodes: 1, --tp-size × --pp-size within one node's GPUs), minding that NCCL settings measured within a node may not carry over to the network between nodes; "+
		"or measure each multi-node setting by hand: a profile P that extends: %s and sets it, served with sglaunch slurm --profile P, measured with sglaunch bench --profile P --url http://RANK0:PORT, compared with sglaunch bench compare",
		where, p.Profile, p.MultiNode.Nodes, p.Profile)
}
