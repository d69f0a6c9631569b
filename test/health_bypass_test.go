package test

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestHealthBypassReadinessGenerates pins issue 20's sixth defect: under
// SGLANG_DIAG_BYPASS_HEALTH_GENERATE=1 SGLang's /health answers 200
// without generating, hung ranks or not, and sglaunch took that 200 for
// ready. Preflight now WARNs on the setting, and readiness proves a
// one-token /generate of its own: with ranks that cannot generate
// (hung at ready) /health says 200 and sglaunch still waits; with ranks
// that can, it is ready after its generation.
func TestHealthBypassReadinessGenerates(t *testing.T) {
	t.Parallel() // each subtest has its own dirs and port
	t.Run("generation impossible", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		port := simProfile(t, e, "bypass", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3",
			"SGLANG_DIAG_BYPASS_HEALTH_GENERATE": "1", "SGLANG_SIM_HANG_AFTER_READY": "0"},
			"health:\n  request_timeout: 1s\n  poll_interval: 200ms\n")
		p := e.Start("serve", "--profile", "bypass")
		testkit.WaitFor(t, waitTimeout, "/health to answer 200", func() bool {
			if isDone(p) {
				t.Fatalf("sglaunch exited:\n%s", p.Stderr())
			}
			return healthStatus(port) == 200
		})
		// Several probes and generations later, still not ready.
		time.Sleep(4 * time.Second)
		out := p.Stderr()
		if strings.Contains(out, "healthy after") {
			t.Errorf("a bypassed /health made sglaunch call a server that cannot generate ready:\n%s", out)
		}
		if !strings.Contains(out, "SGLANG_DIAG_BYPASS_HEALTH_GENERATE") || !strings.Contains(out, "one-token /generate") {
			t.Errorf("preflight did not warn about the bypass:\n%s", out)
		}
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
		p.Wait(t, commandTimeout)
	})
	t.Run("generation works", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		simProfile(t, e, "bypass", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3",
			"SGLANG_DIAG_BYPASS_HEALTH_GENERATE": "1"}, "")
		p := e.Start("serve", "--profile", "bypass")
		waitServeHealthy(t, p)
		if n := strings.Count(p.Stdout(), `"POST /generate HTTP/1.1" 200`); n < 2 {
			t.Errorf("%d /generate in the access log, want the warm-up's and sglaunch's own:\n%s", n, p.Stdout())
		}
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
		p.Wait(t, commandTimeout)
	})
}
