package bench

import (
	"fmt"
	"testing"
)

// exitStatus stands for launcher.ExitStatus, which bench does not import.
type exitStatus string

func (s exitStatus) String() string { return string(s) }

// TestStopTextCleanDrain pins issue 24: bench show said "exit status 137
// (SIGKILL)" for a server that drained and ended by itself (SGLang
// SIGKILLs its own tree after the drain), which read as a kill.
func TestStopTextCleanDrain(t *testing.T) {
	tests := []struct {
		name   string
		status exitStatus
		err    error
		want   string
	}{
		{"drained, SGLang's own SIGKILL", "exit status 137 (SIGKILL)", nil, "stopped by sglaunch: drained and ended by itself (exit status 137 (SIGKILL), SGLang's own end of its process tree)"},
		{"drained, status 0", "exit status 0", nil, "stopped by sglaunch: drained and ended by itself (exit status 0)"},
		{"killed after stop_timeout", "exit status 137 (SIGKILL)", fmt.Errorf("%w: it did not stop within 30s", ErrStopKilled), "stopped by sglaunch: it did not stop within stop_timeout and was killed (exit status 137 (SIGKILL))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stopText(tt.status, tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
