package test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
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

// TestDiffWorkerOnlyNCCLProtoDrift pins issue 19's second defect through
// the binary and the sim: one TP worker runs NCCL_PROTO=Simple under a
// plan with LL. verify reported NCCL_PROTO DIFFERENT while `diff plan
// running` read the server process alone and showed no NCCL_PROTO row
// (exit 0). Both now give the same verdict, naming the worker.
func TestDiffWorkerOnlyNCCLProtoDrift(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.Profile("kimi-on-sim", kimiOnSim(t, port))
	argv, planEnv := planOf(t, e, "--profile", "kimi-on-sim")
	env := handEnv(planEnv["PYTHONPATH"], "SGLANG_SIM_WORKER_ENV=NCCL_PROTO=Simple", "SGLANG_SIM_WORKER_ENV_RANK=1")
	for k, v := range planEnv {
		env[k] = v
	}
	srv := startByHand(t, argv, env)
	waitHealthy(t, port)
	worker := "env of pid " + strconv.Itoa(rankPID(t, srv.Process.Pid, 1))
	pid := "pid:" + strconv.Itoa(srv.Process.Pid)

	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(srv.Process.Pid))
	if code != 1 || !lineWith(stdout, "DIFFERENT", "NCCL_PROTO", "Simple", worker) {
		t.Fatalf("verify: exit %d, want 1 with NCCL_PROTO DIFFERENT in %s\n%s%s", code, worker, stdout, stderr)
	}
	stdout, stderr, code = e.Run("diff", "profile:kimi-on-sim", pid)
	if code != 1 || !lineWith(stdout, "DIFFERENT", "NCCL_PROTO", "LL", "Simple", worker) {
		t.Errorf("diff plan running: exit %d, want 1 with verify's NCCL_PROTO row\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.Run("diff", pid, "profile:kimi-on-sim")
	if code != 1 || !lineWith(stdout, "NCCL_PROTO", "Simple", "LL") {
		t.Errorf("diff running plan: exit %d, want 1 with the NCCL_PROTO row\n%s%s", code, stdout, stderr)
	}
}
