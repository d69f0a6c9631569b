package main

import (
	"context"
	"fmt"
	"net"
	"os"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/launch"
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

// workerObservations asks the sglaunch of rank 0, whose launch st runs
// on this host, for every worker's observation of its own server. cmd
// names the command in errors, what the launch.
func workerObservations(ctx context.Context, cmd, what string, st *launch.State) ([]group.Observed, error) {
	switch {
	case st == nil || st.Group == nil:
		return nil, inputerr.Errorf("%s: %s is not a rank of a multi-node server; leave out --group", cmd, what)
	case st.Group.Rank != 0:
		return nil, inputerr.Errorf("%s: this host runs rank %d; run it on rank 0's host (its control channel is %s)", cmd, st.Group.Rank, st.Group.Control)
	}
	// The control channel answers observations to local clients only.
	_, port, _ := net.SplitHostPort(st.Group.Control)
	items, err := group.ObserveAll(ctx, net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("%s: %w", cmd, err))
	}
	return items, nil
}
