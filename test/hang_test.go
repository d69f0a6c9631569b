package test

import (
	"strings"
	"testing"
	"time"
)

// TestHungServerIsKilledNotDrained pins issue 22, defect 13: a server
// whose liveness probes failed was still sent SIGTERM and given the full
// stop_timeout (60 s) to drain before it was killed, so a hang cost
// detection + 60 s + RestartSec. A hung server finishes no request: its
// tree now ends at once. The sim stands for a hang that SIGTERM cannot
// end (ranks stuck in a collective ignore it).
func TestHungServerIsKilledNotDrained(t *testing.T) {
	e := newEnv(t)
	simProfile(t, e, "hung", map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":     "0.3",
		"SGLANG_SIM_HANG_AFTER_READY": "0.5",
		"SGLANG_HEALTH_CHECK_TIMEOUT": "1",
		"SGLANG_SIM_IGNORE_SIGTERM":   "1",
	}, "health:\n  interval: 200ms\n  failure_threshold: 2\n  request_timeout: 5s\nstop_timeout: 60s\n")
	p := e.Start("serve", "--profile", "hung")
	waitServeHealthy(t, p)
	pids := descendantsOf(t, p.Cmd.Process.Pid)
	var unhealthyAt time.Time
	for unhealthyAt.IsZero() {
		select {
		case <-p.Done():
			unhealthyAt = time.Now()
		case <-time.After(20 * time.Millisecond):
			if strings.Contains(p.Stderr(), "server unhealthy:") {
				unhealthyAt = time.Now()
			}
		}
	}
	code := p.Wait(t, commandTimeout)
	if took := time.Since(unhealthyAt); took > 15*time.Second {
		t.Errorf("sglaunch ended %v after the server was found unhealthy, want well under stop_timeout (60s)", took.Round(time.Millisecond))
	}
	if code != 1 {
		t.Errorf("exit status %d, want 1\n%s", code, p.Stderr())
	}
	if !strings.Contains(p.Stderr(), "killing it (a hung server drains nothing)") {
		t.Errorf("stderr does not say the hung server is killed:\n%s", p.Stderr())
	}
	allGone(t, pids)
}
