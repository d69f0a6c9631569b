package preflight

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRunProcCapsOutput: a child that prints without end (a simulator
// flooding its log on --help did) must not fill sglaunch's memory.
func TestRunProcCapsOutput(t *testing.T) {
	res := runProc(context.Background(), []string{"head", "-c", "50000000", "/dev/zero"}, nil, t.TempDir(), time.Minute)
	if res.err == nil || !strings.Contains(res.err.Error(), "printed more than 4 MiB") {
		t.Errorf("err: got %v, want the output cut", res.err)
	}
	if len(res.stdout) != maxOutput {
		t.Errorf("kept %d bytes, want %d", len(res.stdout), maxOutput)
	}
}
