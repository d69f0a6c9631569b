package main

import (
	"fmt"
	"os"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/plan"
)

// place puts the plan's rank in its group (nil for one node) and adds
// the rank's flags to the plan.
func (e *env) place(p *plan.Plan) (*cluster.Placement, error) {
	pl, err := cluster.Detect(p, cluster.Env{Getenv: e.getenv, Hostname: os.Hostname})
	if err != nil {
		return nil, err
	}
	cluster.Apply(p, pl)
	return pl, nil
}

// placeToShow places the rank for a command that only shows the plan
// (config, preflight): where no orchestrator places it, the plan has no
// rank's flags, and why is said on stderr.
func (e *env) placeToShow(p *plan.Plan) {
	if _, err := e.place(p); err != nil {
		fmt.Fprintf(e.stderr, "sglaunch: multinode: %v\n", err)
	}
}
