package slurm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// groupReadyTimeout bounds a group's start: every rank's preflight, the
// rendezvous and the simulator's load, on a loaded 2-core machine.
const groupReadyTimeout = 2 * time.Minute

// sglaunchEnv is what sglaunch runs with on every node (srun and sbatch
// export the submitter's environment): its own directories under dir,
// the shared simulator cache.
func (c *cluster) sglaunchEnv(dir string) []string {
	env := clientEnv(c.conf)
	return append(env, "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_CACHE_HOME="+sharedCache,
		"SGLAUNCH_STATE_DIR="+filepath.Join(dir, "state"), "SGLAUNCH_RUNTIME_DIR="+filepath.Join(dir, "run"),
		// The group's secret, as a job script gives it (the generated
		// one makes its own).
		"SGLAUNCH_GROUP_SECRET=slurm-test-group-secret-0123456789")
}

// profile writes the multi-node profile every rank runs: the demo on
// the simulator with fast timings, one TP rank per node, stop_timeout
// 10 s.
func profile(t *testing.T, dir string, nodes int) string {
	t.Helper()
	return profileStop(t, dir, nodes, 10*time.Second)
}

// profileStop is profile with stop_timeout stop.
func profileStop(t *testing.T, dir string, nodes int, stop time.Duration) string {
	t.Helper()
	path := filepath.Join(dir, "mn.yaml")
	yaml := fmt.Sprintf(`name: mn
extends: demo
python: %s
env:
  SGLANG_SIM_LOAD_SECONDS: "0.5"
  SGLANG_SIM_WARMUP_SECONDS: "0.1"
  SGLANG_SIM_HEALTH_POLL_SECONDS: "0.05"
  SGLANG_SIM_DRAIN_POLL_SECONDS: "0.2"
  SGLANG_SIM_SHUTDOWN_WAIT_SECONDS: "1"
  SGLANG_SIM_WATCHDOG_SECONDS: "0.2"
args:
  tp: %d
health: {poll_interval: 100ms, interval: 1s}
stop_timeout: %s
multinode:
  nodes: %d
  heartbeat: {interval: 500ms, threshold: 3}
`, testkit.PythonWithSetproctitle(t), nodes, stop, nodes)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// srunStep is `srun … sglaunch serve` of a group on n nodes, running.
type srunStep struct {
	cmd  *exec.Cmd
	out  *testkit.SyncBuffer
	done chan error
}

// srunServe starts every rank of prof through one srun step (with srun's
// extra options first) and waits until all n are healthy.
func (c *cluster) srunServe(t *testing.T, dir, prof string, n int, extra ...string) *srunStep {
	t.Helper()
	args := append([]string{"--nodes", fmt.Sprint(n), "--ntasks-per-node=1", "--kill-on-bad-exit=1"}, extra...)
	cmd := c.client(context.Background(), "srun", append(args, sglaunchBin, "serve", "--profile", prof)...)
	cmd.Env = c.sglaunchEnv(dir)
	s := &srunStep{cmd: cmd, out: &testkit.SyncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait() }()
	testkit.WaitFor(t, groupReadyTimeout, fmt.Sprintf("%d ranks healthy", n), func() bool {
		select {
		case err := <-s.done:
			t.Fatalf("srun ended (%v) before the group was ready:\n%s", err, s.out.String())
		default:
		}
		return healthyRanks(s.out.String()) == n
	})
	return s
}

// wait waits for srun to end.
func (s *srunStep) wait(t *testing.T, after string) {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(groupReadyTimeout):
		t.Fatalf("srun did not end after %s:\n%s", after, s.out.String())
	}
}

// noneLeft waits until no sglaunch or SGLang process is left on any
// node (slurmd and slurmstepd live on).
func (c *cluster) noneLeft(t *testing.T) {
	t.Helper()
	for _, node := range c.net.Nodes {
		testkit.WaitFor(t, stopTimeout, "no process left in "+node.Name, func() bool {
			a, err1 := node.Find("sglaunch")
			b, err2 := node.Find("sglang")
			return err1 == nil && err2 == nil && len(a)+len(b) == 0
		})
	}
}

// healthyRanks counts the ranks that logged their healthy line, which
// each does only once the whole group is ready.
func healthyRanks(out string) int { return strings.Count(out, "sglaunch: healthy after") }

// TestGroupUnderSrun: two and three nodes come up through a real srun
// step, each rank placed by SLURM_NODEID and the first host of
// SLURM_STEP_NODELIST, serve, and stop cleanly on one signal.
func TestGroupUnderSrun(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("nodes=%d", n), func(t *testing.T) {
			c := startCluster(t, n)
			dir := t.TempDir()
			prof := profile(t, dir, n)
			run := c.srunServe(t, dir, prof, n)
			text := run.out.String()
			for _, want := range []string{"SLURM_NODEID (slurm)", "SLURM_STEP_NODELIST (slurm)", fmt.Sprintf("group preflight passed: %d ranks", n), "--dist-init-addr gpu01:20000"} {
				if !strings.Contains(text, want) {
					t.Errorf("the output lacks %q", want)
				}
			}
			// scancel's SIGTERM reaches every task; each rank drains.
			run.cmd.Process.Signal(syscall.SIGTERM)
			run.wait(t, "SIGTERM")
			c.noneLeft(t)
			if t.Failed() {
				t.Logf("output:\n%s", run.out.String())
			}
		})
	}
}

// TestBatchScriptContextRefused: sglaunch run in the batch script itself,
// outside an srun step (sglang#36116's trap), refuses with exit 2 and
// the srun line, and starts nothing.
func TestBatchScriptContextRefused(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof := profile(t, dir, 2)
	script := fmt.Sprintf("#!/bin/bash\n#SBATCH --nodes=2\n%s serve --profile %s\n", sglaunchBin, prof)
	id, err := c.sbatchEnv(context.Background(), script, c.sglaunchEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.waitJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != "2:0" {
		t.Errorf("job exit code %s, want 2:0", res.ExitCode)
	}
	for _, want := range []string{"outside an srun step", "srun --nodes="} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("the job's output lacks %q:\n%s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "server started") {
		t.Errorf("a server started in the batch context:\n%s", res.Output)
	}
}

// TestGeneratedSbatchScriptRuns: the script `sglaunch slurm` writes runs
// under this Slurm as written (GPUs per node included): every rank comes
// up, and scancel ends the job with nothing left.
func TestGeneratedSbatchScriptRuns(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof := profile(t, dir, 2)
	gen := c.client(context.Background(), sglaunchBin, "slurm", "--profile", prof, "--job-name", "sgl-test")
	gen.Env = c.sglaunchEnv(dir)
	script, err := gen.Output()
	if err != nil {
		t.Fatalf("sglaunch slurm: %v", err)
	}
	if !strings.Contains(string(script), "--gpus-per-node=1") {
		t.Errorf("the script asks for no GPUs per node:\n%s", script)
	}
	id, err := c.sbatchEnv(context.Background(), string(script), c.sglaunchEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, groupReadyTimeout, "both ranks healthy in the job's output", func() bool {
		b, _ := os.ReadFile(c.jobOutput(id))
		return healthyRanks(string(b)) == 2
	})
	if _, err := c.run(context.Background(), "scancel", id); err != nil {
		t.Fatal(err)
	}
	res, err := c.waitJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "group preflight passed: 2 ranks") {
		t.Errorf("the job's output lacks the group preflight:\n%s", res.Output)
	}
	c.noneLeft(t)
}

// TestRankLostUnderSrunEndsStep: a worker's server killed under srun:
// every rank exits 1 naming it, and the step ends.
func TestRankLostUnderSrunEndsStep(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof := profile(t, dir, 2)
	run := c.srunServe(t, dir, prof, 2, "--label")
	servers, err := c.net.Nodes[1].Find("sglang.launch_server")
	if err != nil || len(servers) == 0 {
		t.Fatalf("no SGLang process on gpu02 (%v)", err)
	}
	at := time.Now()
	syscall.Kill(servers[0], syscall.SIGKILL)
	run.wait(t, "rank 1's server was killed")
	t.Logf("the step ended %s after rank 1's server was killed", time.Since(at).Round(time.Millisecond))
	if !strings.Contains(run.out.String(), "0: sglaunch: error: group failed: rank 1 on node gpu02") {
		t.Errorf("rank 0 does not name rank 1 on gpu02:\n%s", run.out.String())
	}
}
