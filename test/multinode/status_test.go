//go:build linux

package multinode

import (
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestStatusDuringGroupRendezvousShowsEndpointPhase pins a bug: while
// rank 0 waited for its group (up to the rendezvous timeout, minutes),
// `sglaunch status` said the phase "is known only to the status
// endpoint" although the endpoint was up, because the runtime state got
// the status URL only once the server started. Rank 0 runs alone here,
// so it waits for rank 1 until the test ends it.
func TestStatusDuringGroupRendezvousShowsEndpointPhase(t *testing.T) {
	g := newGroup(t, 2, "")
	r := g.start(0, g.lwsEnv(0), "--status-addr", "127.0.0.1:39100")
	testkit.WaitFor(t, readyTimeout, "rank 0 to wait for its group", func() bool {
		return strings.Contains(r.stderr.String(), "waiting for every rank's report")
	})
	code, out := r.run(t, "status", "--profile", "mn")
	if code != 0 {
		t.Fatalf("status exited %d:\n%s", code, out)
	}
	if strings.Contains(out, "known only to the status endpoint") || !strings.Contains(out, "starting") {
		t.Errorf("status during the rendezvous does not show the endpoint's phase:\n%s", out)
	}
	syscall.Kill(r.pid, syscall.SIGTERM)
	r.wait(t)
	g.noneLeft()
}
