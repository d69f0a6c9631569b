package verify

import (
	"context"
	"fmt"

	"github.com/sglaunch/sglaunch/plan"
)

// Deployment is one reading of a live deployment.
type Deployment struct {
	*Located
	// Observed is what this host shows of the server: rank 0's, on a
	// multi-node server.
	Observed *Observation
	// Ranks are, when the target asked for the group, every other rank's
	// observation of its own server, as rank 0's sglaunch relayed it.
	Ranks []RankObservation
}

// Read is the one reading of a live deployment, for verify, verify
// --group and diff: it locates the server t names, chooses the key its
// API takes (APIKey, the one rule), sees that it is up without making it
// generate (CheckReady), that its port is its own (CheckPort), and
// observes its processes, its /server_info, its files and, with t.Group,
// every other rank. exp is the plan the reading will be compared with
// (nil: none): its managed variables are what the site probe watches and
// its --api-key the second choice of key.
func Read(ctx context.Context, t Target, exp *Expected) (*Deployment, error) {
	l, err := Locate(ctx, t)
	if err != nil {
		return nil, err
	}
	return ReadLocated(ctx, t, exp, l)
}

// ReadLocated is Read of a server already located (l, as Locate found it
// for t).
func ReadLocated(ctx context.Context, t Target, exp *Expected, l *Located) (*Deployment, error) {
	if t.Group {
		if err := groupRankZero(l); err != nil {
			return nil, err
		}
	}
	l.APIKey = APIKey(l, exp, t)
	if err := CheckReady(ctx, l); err != nil {
		return nil, err
	}
	if err := CheckPort(l); err != nil {
		return nil, err
	}
	managed := plan.DefaultManaged
	if exp != nil && len(exp.Managed) > 0 {
		managed = exp.Managed
	}
	o, err := Observe(ctx, l.ServerPID, l.URL, managed, l.APIKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.How, err)
	}
	d := &Deployment{Located: l, Observed: o}
	if t.Group {
		if d.Ranks, err = observeRanks(ctx, l); err != nil {
			return nil, err
		}
	}
	return d, nil
}
