package slurm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// report is what each task (or the batch script) prints: its SLURM_
// variables, its network namespace and its address, as KEY=VALUE lines.
const report = `env | grep -E '^SLURMD?_' | sort
echo "NETNS=$(readlink /proc/self/ns/net)"
set -- $(ip -4 -o addr show dev eth0)
echo "ADDR=$4"
`

// stepVars are what an srun step sets on every task and the batch
// script, outside a step, does not: the marks a launcher reads its rank
// from (sgl-project/sglang#36116).
var stepVars = []string{"SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_NODELIST", "SLURM_STEP_NUM_NODES", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_TASKS_PER_NODE"}

// labelled parses `srun --label` output of report: task id → variables.
func labelled(out string) map[string]map[string]string {
	tasks := map[string]map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		label, kv, ok := strings.Cut(l, ": ")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		label = strings.TrimSpace(label)
		if tasks[label] == nil {
			tasks[label] = map[string]string{}
		}
		tasks[label][k] = v
	}
	return tasks
}

// vars parses unlabelled KEY=VALUE lines.
func vars(lines []string) map[string]string {
	m := map[string]string{}
	for _, l := range lines {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// checkInNode fails the test unless the task that printed v ran on
// Slurm node name inside that node's own network namespace.
func (c *cluster) checkInNode(t *testing.T, who string, v map[string]string, name string) {
	t.Helper()
	n := c.node(name)
	ino, err := n.Inode()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v["NETNS"], fmt.Sprintf("net:[%d]", ino); got != want {
		t.Errorf("%s on %s: network namespace %s, want %s (node %s's)", who, name, got, want, n.Name)
	}
	if got, want := v["ADDR"], n.IP+"/24"; got != want {
		t.Errorf("%s on %s: eth0 has %q, want %q", who, name, got, want)
	}
}

func want(t *testing.T, who string, v map[string]string, key, value string) {
	t.Helper()
	if got, ok := v[key]; !ok || got != value {
		t.Errorf("%s: %s=%q (set: %v), want %q", who, key, got, ok, value)
	}
}

// TestSrunStepVariables pins what a task of `srun -N2
// --ntasks-per-node=1` sees on each node: its own SLURM_NODEID and
// SLURM_PROCID, and the step's node list and size; and that each task
// really ran in its own node's namespace.
func TestSrunStepVariables(t *testing.T) {
	c := startCluster(t, 2)
	out, err := c.srun(t.Context(), "-N2", "--ntasks-per-node=1", "--label", "sh", "-c", report)
	if err != nil {
		t.Fatal(err)
	}
	tasks := labelled(out)
	if len(tasks) != 2 {
		t.Fatalf("got output of %d tasks, want 2:\n%s", len(tasks), out)
	}
	for i, name := range c.names {
		who := "task " + strconv.Itoa(i)
		v := tasks[strconv.Itoa(i)]
		want(t, who, v, "SLURM_PROCID", strconv.Itoa(i))
		want(t, who, v, "SLURM_NODEID", strconv.Itoa(i))
		want(t, who, v, "SLURMD_NODENAME", name)
		want(t, who, v, "SLURM_STEP_NODELIST", "gpu[01-02]")
		want(t, who, v, "SLURM_STEP_NUM_NODES", "2")
		want(t, who, v, "SLURM_STEP_NUM_TASKS", "2")
		want(t, who, v, "SLURM_STEP_ID", "0")
		want(t, who, v, "SLURM_LOCALID", "0")
		want(t, who, v, "SLURM_JOB_NODELIST", "gpu[01-02]")
		want(t, who, v, "SLURM_NNODES", "2")
		// srun from the root namespace: the launch node is the host's
		// side of the bridge.
		want(t, who, v, "SLURM_LAUNCH_NODE_IPADDR", c.net.HostIP)
		c.checkInNode(t, who, v, name)
	}
}

// TestBatchScriptIsNotAStep pins the trap a launcher must refuse: the
// batch part of `sbatch --nodes=2` runs once, on the first node, with
// SLURM_NODEID=0, SLURM_PROCID=0, SLURM_NNODES=2 and the job's node list
// but none of the step variables, so a launcher that reads its rank
// there makes "rank 0" of every node (sgl-project/sglang#36116). The
// srun inside it then sets them per task. Observed with Slurm 22.05.8:
//
//	batch script: SLURM_NODEID=0 SLURM_PROCID=0 SLURM_LOCALID=0
//	  SLURM_NNODES=2 SLURM_JOB_NUM_NODES=2 SLURM_JOB_NODELIST=gpu[01-02]
//	  SLURM_NODELIST=gpu[01-02] SLURM_TASKS_PER_NODE=1(x2) SLURM_GTIDS=0
//	  SLURMD_NODENAME=gpu01; no SLURM_STEP_* (not even SLURM_STEP_ID),
//	  no SLURM_NTASKS when --ntasks is not given.
//	srun step:    the same job variables, plus SLURM_STEP_ID=0
//	  SLURM_STEPID=0 SLURM_STEP_NODELIST=gpu[01-02]
//	  SLURM_STEP_NUM_NODES=2 SLURM_STEP_NUM_TASKS=2
//	  SLURM_STEP_TASKS_PER_NODE=1(x2) SLURM_STEP_LAUNCHER_PORT, and each
//	  task's own SLURM_NODEID and SLURM_PROCID.
func TestBatchScriptIsNotAStep(t *testing.T) {
	c := startCluster(t, 2)
	script := "#!/bin/sh\n#SBATCH --nodes=2\n" + report +
		"echo ---\nsrun --kill-on-bad-exit=1 --ntasks-per-node=1 --label sh -c '" + strings.ReplaceAll(report, "'", `'\''`) + "'\n"
	id, err := c.sbatch(t.Context(), script)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.waitJob(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != "COMPLETED" || res.ExitCode != "0:0" {
		t.Fatalf("job %s: %s %s, want COMPLETED 0:0; output:\n%s", id, res.State, res.ExitCode, res.Output)
	}
	batchPart, stepPart, ok := strings.Cut(res.Output, "---\n")
	if !ok {
		t.Fatalf("no step output after the batch part:\n%s", res.Output)
	}
	batch := vars(strings.Split(batchPart, "\n"))
	for k, v := range map[string]string{
		"SLURM_NODEID": "0", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NNODES": "2",
		"SLURM_JOB_NUM_NODES": "2", "SLURM_JOB_NODELIST": "gpu[01-02]", "SLURM_NODELIST": "gpu[01-02]",
		"SLURMD_NODENAME": "gpu01", "SLURM_JOB_ID": id,
	} {
		want(t, "batch script", batch, k, v)
	}
	for _, k := range stepVars {
		if v, ok := batch[k]; ok {
			t.Errorf("batch script: %s=%q is set; Slurm 22.05 sets it only in a step", k, v)
		}
	}
	c.checkInNode(t, "batch script", batch, "gpu01")
	t.Logf("batch script's SLURM_ variables: %s", strings.Join(slurmKeys(batch), " "))

	tasks := labelled(stepPart)
	if len(tasks) != 2 {
		t.Fatalf("got output of %d tasks, want 2:\n%s", len(tasks), stepPart)
	}
	for i, name := range c.names {
		who := "step task " + strconv.Itoa(i)
		v := tasks[strconv.Itoa(i)]
		want(t, who, v, "SLURM_NODEID", strconv.Itoa(i))
		want(t, who, v, "SLURM_PROCID", strconv.Itoa(i))
		want(t, who, v, "SLURM_STEP_NODELIST", "gpu[01-02]")
		want(t, who, v, "SLURM_STEP_NUM_NODES", "2")
		want(t, who, v, "SLURM_STEP_ID", "0")
		want(t, who, v, "SLURMD_NODENAME", name)
		c.checkInNode(t, who, v, name)
		if i == 0 {
			var extra []string
			for _, k := range slurmKeys(v) {
				if _, ok := batch[k]; !ok {
					extra = append(extra, k)
				}
			}
			t.Logf("a step adds: %s", strings.Join(extra, " "))
		}
	}
}

func slurmKeys(v map[string]string) []string {
	var keys []string
	for k := range v {
		if strings.HasPrefix(k, "SLURM") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// killTimeout bounds how long --kill-on-bad-exit may take to end the
// surviving task: far above the measured ~0.1 s, far below its 300 s
// sleep.
const killTimeout = 20 * time.Second

// TestKillOnBadExitEndsTheStep pins that `srun --kill-on-bad-exit=1`
// ends the whole step when one task exits 1: the other task (sleeping)
// is killed promptly (measured: 30 ms from the failing task's exit to
// srun's return, on a 2-core VM) and srun fails with the killed task's
// status, not the failed one's. It logs how long that takes.
func TestKillOnBadExitEndsTheStep(t *testing.T) {
	c := startCluster(t, 2)
	pidFile := filepath.Join(c.dir, "sleeper.pid")
	exitFile := filepath.Join(c.dir, "failed.at")
	// Task 0 sleeps; task 1 exits 1 after a second, noting the time.
	task := fmt.Sprintf(`if [ "$SLURM_PROCID" = 0 ]; then echo $$ > %s; exec sleep 300; fi
sleep 1; date +%%s.%%N > %s; exit 1`, pidFile, exitFile)
	start := time.Now()
	out, err := c.srun(t.Context(), "-N2", "--ntasks-per-node=1", "--kill-on-bad-exit=1", "sh", "-c", task)
	ended := time.Now()
	if err == nil {
		t.Fatalf("srun succeeded, want it to fail with its task; output:\n%s", out)
	}
	b, rerr := os.ReadFile(exitFile)
	if rerr != nil {
		t.Fatalf("task 1 left no exit time: %v (srun: %v)", rerr, err)
	}
	failedAt, perr := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if perr != nil {
		t.Fatal(perr)
	}
	took := ended.Sub(time.Unix(0, int64(failedAt*1e9)))
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("srun: %v", err)
	}
	t.Logf("srun exited %d %v after task 1 exited 1 (it ran %v in all); it said:\n%s", ee.ExitCode(),
		took.Round(time.Millisecond), ended.Sub(start).Round(time.Millisecond), ee.Stderr)
	// srun's status is its worst task's: the one it killed (143, SIGTERM,
	// observed with 22.05.8; 137 should the kill escalate), not the 1 of
	// the task that failed.
	if code := ee.ExitCode(); code != 128+int(syscall.SIGTERM) && code != 128+int(syscall.SIGKILL) {
		t.Errorf("srun exited %d, want %d (its killed task's SIGTERM)", code, 128+int(syscall.SIGTERM))
	}
	if took > killTimeout {
		t.Errorf("the step ended %v after the failing task, want under %v", took, killTimeout)
	}
	b, rerr = os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatalf("task 0 left no pid: %v", rerr)
	}
	pid := strings.TrimSpace(string(b))
	if st, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
		t.Errorf("task 0's sleep (pid %s) is still running after srun returned: %s", pid, st)
	}
}

// TestHostnamesExpandsTheNodeList pins the hostlist syntax on three
// nodes: Slurm writes the nodes as the zero-padded compressed gpu[01-03]
// (never a comma list a launcher could split), and scontrol show
// hostnames expands it, and a step's own SLURM_STEP_NODELIST, in order.
func TestHostnamesExpandsTheNodeList(t *testing.T) {
	c := startCluster(t, 3)
	if got := c.nodeList(); got != "gpu[01-03]" {
		t.Fatalf("nodeList: got %q, want gpu[01-03]", got)
	}
	out, err := c.run(t.Context(), "sinfo", "-h", "-o", "%N")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != "gpu[01-03]" {
		t.Errorf("sinfo's node list: got %q, want gpu[01-03]", got)
	}
	for list, expect := range map[string][]string{
		"gpu[01-03]":    {"gpu01", "gpu02", "gpu03"},
		"gpu[01,03]":    {"gpu01", "gpu03"},
		"gpu01,gpu[02]": {"gpu01", "gpu02"},
	} {
		got, err := c.hostnames(t.Context(), list)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, expect) {
			t.Errorf("scontrol show hostnames %s: got %q, want %q", list, got, expect)
		}
	}
	// Inside a step, scontrol expands the step's list from the
	// environment: what a launcher on each node would run.
	out, err = c.srun(t.Context(), "-N3", "--ntasks-per-node=1", "--label", "sh", "-c",
		`echo "LIST=$SLURM_STEP_NODELIST"; echo "HOSTS=$(scontrol show hostnames "$SLURM_STEP_NODELIST" | tr '\n' ' ')"`)
	if err != nil {
		t.Fatal(err)
	}
	tasks := labelled(out)
	if len(tasks) != 3 {
		t.Fatalf("got output of %d tasks, want 3:\n%s", len(tasks), out)
	}
	for id, v := range tasks {
		who := "task " + id
		want(t, who, v, "LIST", "gpu[01-03]")
		want(t, who, v, "HOSTS", "gpu01 gpu02 gpu03 ")
	}
}
