package test

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// promptStop bounds a stop before ready: sglaunch's own short grace
// (a few seconds) plus the tree's teardown on a loaded machine, far
// below stop_timeout (60 s) and SGLang's 120 s warm-up give-up.
const promptStop = 20 * time.Second

// TestStopRightAfterPortBound pins issue 20's third defect: SGLang
// installs its SIGTERM handler only on the first request through its
// tokenizer manager (its warm-up /generate, after a 1 s sleep); a SIGTERM
// before it goes to uvicorn, whose shutdown then blocks joining the
// warm-up thread for up to 120 s, and sglaunch ran into its 60 s
// stop_timeout with "did not stop within stop_timeout". A stop before
// ready now has nothing to drain: the tree ends promptly, the log says
// so, nothing is left behind.
func TestStopRightAfterPortBound(t *testing.T) {
	t.Parallel() // its own dirs and port; promptStop leaves room for a loaded machine
	e := newEnv(t)
	port := simProfile(t, e, "window", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_WARMUP_SECONDS": "60", "SGLANG_SIM_WARMUP_SLEEP_SECONDS": "50",
	}, "")
	p := e.Start("serve", "--profile", "window")
	// The server's own listener, not any that answers on the port: a full
	// run once stopped sglaunch before its server had started (no "during
	// the load" line, 21 ms), the port answering for some other process.
	testkit.WaitFor(t, waitTimeout, "the server to bind its port", func() bool {
		if isDone(p) {
			t.Fatalf("sglaunch exited early:\n%s", p.Stderr())
		}
		pid, _ := proc.ListeningPID(port)
		return pid != 0 && slices.Contains(descendantsOf(t, p.Cmd.Process.Pid), pid)
	})
	descendants := descendantsOf(t, p.Cmd.Process.Pid)
	start := time.Now()
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, promptStop)
	took := time.Since(start)
	allGone(t, descendants)
	if pid, _ := proc.ListeningPID(port); pid != 0 {
		t.Errorf("pid %d still listens on %d", pid, port)
	}
	out := p.Stderr()
	if strings.Contains(out, "did not stop within") || strings.Contains(out, "(stop_timeout)") || took > promptStop/2 {
		t.Errorf("the stop ran into stop_timeout (%v):\n%s", took, out)
	}
	if !strings.Contains(out, "during the load") || !strings.Contains(out, "nothing to drain") {
		t.Errorf("the log does not say the stop came during the load with nothing to drain:\n%s", out)
	}
	t.Logf("stopped %v after the SIGTERM", took.Round(time.Millisecond))
}
