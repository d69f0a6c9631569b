package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/launcher"
)

// TestStopTextCleanDrain pins issue 24's eighth item: bench show said
// "exit status 137 (SIGKILL)" for a server that drained and ended its own
// tree, as SGLang does, which read as a kill.
func TestStopTextCleanDrain(t *testing.T) {
	tests := []struct {
		status launcher.ExitStatus
		err    error
		want   string
	}{
		{137, nil, "drained and ended its own tree"},
		{137, fmt.Errorf("%w: it did not stop within 60.0s", launcher.ErrKilled), "did not stop within stop_timeout and was killed"},
		{0, nil, "stopped by sglaunch: exit status 0"},
	}
	for _, tt := range tests {
		if got := stopText(tt.status, tt.err); !strings.HasPrefix(got, "stopped by sglaunch: ") || !strings.Contains(got, tt.want) {
			t.Errorf("stopText(%v, %v) = %q, want it to say %q", tt.status, tt.err, got, tt.want)
		}
	}
}
