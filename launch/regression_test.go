package launch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/status"
)

// TestStatusDuringGroupRendezvousShowsEndpointPhase pins a bug: while
// rank 0 of a multi-node server waited for its group (up to the
// rendezvous timeout, minutes), `sglaunch status` said the phase "is
// known only to the status endpoint" although the endpoint was up: the
// status URL was set on the runtime state in memory and written only
// once the server started. Now every change of the state is written at
// once, so status reads the endpoint's phase during the rendezvous.
func TestStatusDuringGroupRendezvousShowsEndpointPhase(t *testing.T) {
	s := testSpec(t)
	s.Placement = rankZero()
	st := fakeSteps(t, &recorder{}, s.RuntimeDir, nil, nil)
	waiting, release := make(chan struct{}), make(chan struct{})
	st.rendezvous = func(ctx context.Context, _ group.Join) (group.Member, error) {
		close(waiting)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("rank 1 never reported")
	}
	done := make(chan error, 1)
	go func() { done <- run(t.Context(), s, st) }()
	select {
	case <-waiting:
	case <-time.After(waitTimeout):
		t.Fatal("the launch never reached the rendezvous")
	}
	snaps, err := status.Local(t.Context(), s.RuntimeDir, "")
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 1 {
		t.Fatalf("got %d launches, want 1", len(snaps))
	}
	snap := snaps[0]
	if snap.StatusURL == "" || strings.Contains(snap.Why, "known only to the status endpoint") {
		t.Errorf("status during the rendezvous came from the runtime state, not the endpoint: phase %q, why %q", snap.Phase, snap.Why)
	}
	if snap.Phase != status.PhaseStarting {
		t.Errorf("phase %q, want %q (the endpoint's, before the server starts)", snap.Phase, status.PhaseStarting)
	}
	if snap.Group == nil || snap.Group.Rank != 0 || snap.Group.Nodes != 2 {
		t.Errorf("group %+v, want rank 0 of 2", snap.Group)
	}
	if err := <-done; err == nil {
		t.Error("the launch went on without its group")
	}
	noState(t, s.RuntimeDir)
}
