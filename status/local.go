package status

import (
	"context"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/runstate"
)

// Local is what is known of the launches on this host whose runtime
// state is under dir (of profile only, when not empty), newest launch of
// a profile first: what the launch's status endpoint says, when it has
// one and it answers, else what its runtime state says. None found is an
// empty list.
func Local(ctx context.Context, dir, profile string) ([]*Snapshot, error) {
	states, err := runstate.ListAll(dir)
	if err != nil {
		return nil, err
	}
	var out []*Snapshot
	for _, st := range states {
		if profile != "" && st.Profile != profile {
			continue
		}
		snap := FromRunState(st)
		if st.StatusURL != "" && !st.Stale {
			if live, err := Fetch(ctx, st.StatusURL); err == nil {
				snap = live
			} else {
				snap.Why = strings.TrimSpace(snap.Why + "; " + err.Error())
			}
		}
		out = append(out, snap)
	}
	// The newest launch of a profile first: --profile shows the current one.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Profile != out[j].Profile {
			return out[i].Profile < out[j].Profile
		}
		return out[i].Load.StartedAt.After(out[j].Load.StartedAt)
	})
	return out, nil
}

// Find is Local for the status command: none found is an input error
// (exit 2), as verify's "nothing to check" is.
func Find(ctx context.Context, dir, profile string) ([]*Snapshot, error) {
	out, err := Local(ctx, dir, profile)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if profile != "" {
			return nil, inputerr.Errorf("no launch of profile %s is running on this host (no runtime state in %s)", profile, dir)
		}
		return nil, inputerr.Errorf("no sglaunch launch is running on this host (no runtime state in %s)", dir)
	}
	return out, nil
}
