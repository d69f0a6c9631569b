package reliability

import (
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// stopScenario is one way a supervised server is stopped. act gets the
// running serve and its server's pid, and stops it; nextStart says the
// server's tree may outlive sglaunch until the next sglaunch starts.
type stopScenario struct {
	name       string
	duringLoad bool
	act        func(r *run, server int)
	nextStart  bool
}

func signal(sig syscall.Signal) func(*run, int) {
	return func(r *run, _ int) { _ = r.cmd.Process.Signal(sig) }
}

var stopScenarios = []stopScenario{
	{name: "SIGTERM", act: signal(syscall.SIGTERM)},
	{name: "SIGINT", act: signal(syscall.SIGINT)},
	{name: "SIGHUP", act: signal(syscall.SIGHUP)},
	{name: "SIGQUIT", act: signal(syscall.SIGQUIT)},
	{name: "SIGINT twice (kill at once)", act: func(r *run, _ int) {
		_ = r.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(50 * time.Millisecond)
		_ = r.cmd.Process.Signal(syscall.SIGINT)
	}},
	{name: "SIGTERM during the load", duringLoad: true, act: signal(syscall.SIGTERM)},
	{name: "kill -9 of the server", act: func(_ *run, server int) { _ = syscall.Kill(server, syscall.SIGKILL) }},
	{name: "kill -9 of sglaunch", act: signal(syscall.SIGKILL), nextStart: true},
}

// TestStopCycles runs stop cycles over every scenario in turn, each
// server with a worker that calls setsid(), and counts a cycle failed
// when any process of the server's tree survives: sglaunch's exit, or,
// after a kill -9 of sglaunch, the next start of serve. The cycles run
// as parallel subtests, each in an environment and on a port of its own.
func TestStopCycles(t *testing.T) {
	t.Parallel()
	cycles := count(t, "SGLAUNCH_RELIABILITY_CYCLES", len(stopScenarios), 200)
	ta := newTally()
	// The group returns once every parallel cycle has ended.
	t.Run("cycles", func(t *testing.T) {
		for i := range cycles {
			sc := stopScenarios[i%len(stopScenarios)]
			t.Run(fmt.Sprintf("%d %s", i, sc.name), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				e.profile("cycle", testkit.FreePort(t), map[string]string{
					"SGLANG_SIM_LOAD_SECONDS":   "0.3",
					"SGLANG_SIM_WARMUP_SECONDS": "0.1",
					"SGLANG_SIM_SETSID_WORKER":  "1",
				}, "stop_timeout: 10s\n")
				why := stopCycle(t, e, sc)
				if why != "" {
					t.Errorf("cycle %d (%s): %s", i, sc.name, why)
				}
				ta.add(sc.name, why != "")
			})
		}
	})
	ta.report(t)
	t.Logf("processes left by a kill -9 of sglaunch and ended by the next start: %d", sweptTotal.Load())
}

// sweptTotal counts the processes that outlived a kill -9 of sglaunch
// until the next start ended them.
var sweptTotal atomic.Int64

// stopCycle starts serve, stops it the scenario's way and says what went
// wrong ("" for nothing).
func stopCycle(t *testing.T, e *env, sc stopScenario) string {
	r := e.start("serve", "--profile", "cycle", "--skip-preflight")
	ready := "sglaunch: healthy after "
	if sc.duringLoad {
		ready = "Load weight begin"
	}
	if !r.waitFor(ready, startBound) {
		return "never got to " + strings.TrimSpace(ready) + ":\n" + tail(r.stderr.String())
	}
	snap := tree(r.cmd.Process.Pid)
	if len(snap) == 0 {
		return "no server tree"
	}
	if !sc.duringLoad && !hasEscaped(snap) {
		return "no setsid worker in the tree"
	}
	sc.act(r, snap[0].PID)
	if !r.wait(exitBound) {
		return "sglaunch did not exit"
	}
	if !sc.nextStart {
		if left := survivors(snap); len(left) > 0 {
			return fmt.Sprintf("survived sglaunch's exit: %v", left)
		}
		return ""
	}
	// The parent-death signal takes the server's main process; the
	// setsid worker lives on until the next start ends it.
	time.Sleep(300 * time.Millisecond)
	leftover := 0
	for _, id := range snap {
		if id.Running() {
			leftover++
		}
	}
	sweptTotal.Add(int64(leftover))
	next := e.start("serve", "--profile", "cycle", "--skip-preflight")
	if !next.waitFor("sglaunch: healthy after ", startBound) {
		return "the next start never got healthy:\n" + tail(next.stderr.String())
	}
	left := waitGone(snap)
	nextSnap := tree(next.cmd.Process.Pid)
	_ = next.cmd.Process.Signal(syscall.SIGTERM)
	if !next.wait(exitBound) {
		return "the next start did not exit"
	}
	if len(left) > 0 {
		return fmt.Sprintf("survived the next start: %v", left)
	}
	if leftover > 0 && !strings.Contains(next.stderr.String(), "ended what launch") {
		return "the next start ended the leftovers without saying so:\n" + tail(next.stderr.String())
	}
	if l := survivors(nextSnap); len(l) > 0 {
		return fmt.Sprintf("the next start's own tree survived it: %v", l)
	}
	return ""
}

func hasEscaped(snap []procID) bool {
	for _, id := range snap {
		if comm(id.PID) == "sglang::escaped" {
			return true
		}
	}
	return false
}

// tail is the end of an output, for a failure message.
func tail(s string) string {
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
