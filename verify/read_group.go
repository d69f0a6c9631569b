package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sglaunch/sglaunch/group"
)

// RankObservation is one worker rank's observation of its own server, as
// rank 0's sglaunch relayed it.
type RankObservation struct {
	Rank int
	Node string
	// Observed is nil when Err says why there is none.
	Observed *Observation
	Err      error
}

// groupRankZero checks that the located launch is rank 0 of a multi-node
// server: only rank 0's control channel answers for every rank.
func groupRankZero(l *Located) error {
	switch st := l.State; {
	case st == nil || st.Group == nil:
		return fmt.Errorf("%s is not a rank of a multi-node server; leave out --group", l.How)
	case st.Group.Rank != 0:
		return fmt.Errorf("this host runs rank %d; run it on rank 0's host (its control channel is %s)", st.Group.Rank, st.Group.Control)
	}
	return nil
}

// observeRanks asks rank 0's sglaunch, whose launch l runs on this host,
// for every worker's observation of its own server.
func observeRanks(ctx context.Context, l *Located) ([]RankObservation, error) {
	// Rank 0 answers observations on an owner-only unix socket only.
	if l.State.Group.Socket == "" {
		return nil, fmt.Errorf("rank 0's launch records no control socket (an older sglaunch?); restart it with this one")
	}
	items, err := group.ObserveAll(ctx, l.State.Group.Socket)
	if err != nil {
		return nil, err
	}
	out := make([]RankObservation, 0, len(items))
	for _, it := range items {
		o, err := workerObservation(it)
		out = append(out, RankObservation{Rank: it.Rank, Node: it.Node, Observed: o, Err: err})
	}
	return out, nil
}

// workerObservation reads one worker's observation as rank 0 relayed it;
// the error says why there is none.
func workerObservation(o group.Observed) (*Observation, error) {
	if o.Error != "" {
		return nil, errors.New(o.Error)
	}
	var obs Observation
	if err := json.Unmarshal(o.Data, &obs); err != nil {
		return nil, fmt.Errorf("its observation is unreadable: %w", err)
	}
	return &obs, nil
}
