package launcher

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestLogFileFullDiskCutSilently pins issue 12, defect 14 (--log-file):
// on a full disk the server log was cut without a word. The cut is said
// once, and the output still reaches stdout.
func TestLogFileFullDiskCutSilently(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	var out, logs testkit.SyncBuffer
	s, err := Start(context.Background(), shPlan(t, "for i in 1 2 3 4 5; do echo line $i; sleep 0.01; done"),
		Options{Stdout: &out, Stderr: &out, LogFile: "/dev/full", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Wait(context.Background())
	_, _ = s.Stop(context.Background(), syscall.SIGKILL, 0)
	if n := strings.Count(logs.String(), "no space left on device"); n != 1 || !strings.Contains(logs.String(), "the log is cut after 0 bytes") {
		t.Errorf("said %d times, want once that the log is cut:\n%s", n, logs.String())
	}
	if !strings.Contains(out.String(), "line 5") {
		t.Errorf("stdout lost the output: %q", out.String())
	}
}
