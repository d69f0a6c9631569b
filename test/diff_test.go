package test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestDiff compares a profile, a bench record and running deployments.
func TestDiff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port, rec := benchKimiOnSim(t, e)

	// The serve plan adds only perf-neutral flags to the benchmarked one.
	stdout, stderr, code := e.Run("diff", "kimi-on-sim", "record:"+rec.ID)
	if code != 0 || !lineWith(stdout, "--host", "0.0.0.0") || !strings.Contains(stdout, "perf-neutral") || strings.Contains(stdout, "perf-relevant") {
		t.Errorf("diff profile record: exit %d, want 0 with only perf-neutral rows\n%s%s", code, stdout, stderr)
	}
	stdout, _, code = e.Run("diff", "profile:kimi-on-sim", "kimi-k2.5-int4-eagle3")
	if code != 1 || !lineWith(stdout, "--tp-size", "2", "8") {
		t.Errorf("diff of two profiles: exit %d, want 1 listing --tp-size\n%s", code, stdout)
	}

	// A hand-started deployment without the NCCL tuning.
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	srv := startByHand(t, argv, handEnv(planEnv["PYTHONPATH"]))
	waitHealthy(t, port)
	stdout, stderr, code = e.Run("diff", "record:"+rec.ID, "pid:"+strconv.Itoa(srv.Process.Pid))
	if code != 1 {
		t.Fatalf("diff record deployment: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"NCCL_PROTO", "NCCL_ALGO", "NCCL_BUFFSIZE"} {
		if !lineWith(stdout, name, "-") {
			t.Errorf("diff does not list %s:\n%s", name, stdout)
		}
	}
	_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
	_ = srv.Wait()

	_, stderr, code = e.Run("diff", "record:nope", "kimi-on-sim")
	if code != 2 || !strings.Contains(stderr, "nope") {
		t.Errorf("unknown record: exit %d, want 2\n%s", code, stderr)
	}
	_, stderr, code = e.Run("diff", "port:"+strconv.Itoa(port), "kimi-on-sim")
	if code != 2 || !strings.Contains(stderr, "nothing listens on port") {
		t.Errorf("nothing running: exit %d, want 2\n%s", code, stderr)
	}
}
