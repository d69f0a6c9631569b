package supervise

import (
	"fmt"
	"testing"

	"github.com/sglaunch/sglaunch/launcher"
)

// TestWorkerExit3AfterGroupStopIsClean pins issue 20's fifth defect: a
// node ≥ 1 of SGLang exits 3 after rank 0's drained shutdown (uvicorn
// without a tokenizer manager), which sglaunch took for a failed rank.
// It is a clean end then, and only then.
func TestWorkerExit3AfterGroupStopIsClean(t *testing.T) {
	exited := func(status int, duringLoad bool) error {
		return &launcher.Error{Reason: launcher.ErrExited, Status: launcher.ExitStatus(status), Ran: true, DuringLoad: duringLoad}
	}
	tests := []struct {
		name    string
		err     error
		stopped bool
		want    bool
	}{
		{"3 after rank 0 stopped the group", exited(3, false), true, true},
		{"3 with the group running", exited(3, false), false, false},
		{"3 during the load", exited(3, true), true, false},
		{"1 after rank 0 stopped the group", exited(1, false), true, false},
		{"killed by a signal", &launcher.Error{Reason: launcher.ErrExited, Status: 137, Ran: true, Signal: "SIGKILL"}, true, false},
		{"stopped on request", &launcher.Error{Reason: launcher.ErrInterrupted, Status: 3, Ran: true}, true, false},
		{"not a launcher error", fmt.Errorf("boom"), true, false},
		{"no error", nil, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cleanEndAfterGroupStop(tt.err, tt.stopped); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if !rank0Stopped(fmt.Errorf("%w: rank 0 stops the group: stopped on SIGTERM", ErrGroupFailed)) {
		t.Error("rank 0's stop message is not recognised")
	}
	if rank0Stopped(fmt.Errorf("%w: rank 1 (node b) lost", ErrGroupFailed)) {
		t.Error("a lost rank is taken for rank 0's stop")
	}
}
