package multinode

import (
	"strings"
	"syscall"
	"testing"
)

// TestWorkerExit3AfterDrainedGroupStop pins issue 20's fifth defect: when
// rank 0 drains and stops, SGLang's schedulers on the other nodes exit 0
// and their launch_server goes on to start uvicorn without a tokenizer
// manager, which exits 3. sglaunch took that 3 for a failed rank (exit 3,
// a restart). After rank 0's drained stop it is the rank's clean end.
func TestWorkerExit3AfterDrainedGroupStop(t *testing.T) {
	g := newGroup(t, 2, "")
	g.startAll(g.lwsEnv)
	g.waitReady()
	syscall.Kill(g.ranks[0].pid, syscall.SIGTERM)
	// A requested, drained stop of a group is 0 on every rank (issue 22).
	if code := g.ranks[0].wait(t); code != 0 {
		t.Errorf("rank 0 exited %d after SIGTERM, want 0", code)
	}
	w := g.ranks[1]
	if code := w.wait(t); code != 0 {
		t.Errorf("the worker exited %d after rank 0's drained stop, want 0:\n%s", code, w.stderr.String())
	}
	out := w.stderr.String()
	if !strings.Contains(out, "Application startup failed. Exiting.") {
		t.Errorf("the worker's server did not end as SGLang's nodes >= 1 do:\n%s", out)
	}
	if !strings.Contains(out, "exited with status 3 after rank 0's drained shutdown") {
		t.Errorf("the worker does not say its 3 was a clean end:\n%s", out)
	}
	g.noneLeft()
}
