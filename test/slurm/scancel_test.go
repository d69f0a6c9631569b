package slurm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// scancelCase is the size of TestScancelDrainsStream's run.
type scancelCase struct {
	nodes, tokens int
	// killWait (slurm.conf) and stop (stop_timeout) bound the drain:
	// the stream's tokens after the signal (10 ms each on the sim) must
	// fit in stop, and stop in killWait.
	killWait int
	stop     time.Duration
}

// scancelSize is two nodes and a 100-token stream (0.8 s left after the
// signal) under a 2 s KillWait (5 s in effect); with SGLAUNCH_SLURM_FULL=1, issue 22's
// own case: four nodes and a 1,500-token stream (about 15 s left) under
// Slurm's default KillWait of 30 s, stop_timeout 25 s.
func scancelSize() scancelCase {
	if os.Getenv("SGLAUNCH_SLURM_FULL") != "" {
		return scancelCase{nodes: 4, tokens: 1500, killWait: 30, stop: 25 * time.Second}
	}
	return scancelCase{nodes: 2, tokens: 100, killWait: defaultKillWait, stop: 10 * time.Second}
}

// TestScancelDrainsStream pins issue 22's first and second defects
// under the real Slurm: scancel of a job running the generated script
// cut a stream in flight (1,500 tokens cut at 297, 69 ms after the
// signal), and a requested stop was logged as "group failed". scancel's
// SIGTERM reaches every process of the step on every node (slurmstepd
// signals the whole process container), and SGLang's schedulers have no
// SIGTERM handler: under Slurm the ranks' servers start with SIGTERM
// ignored, rank 0's main process drains on its own handler, the workers
// keep their servers up until it has, and every rank exits 0 (each
// task's exit status as slurmstepd logs it). The drain must end within
// Slurm's KillWait (2 s here, which slurmd stretches to its floor of
// 5 s; 30 s with SGLAUNCH_SLURM_FULL=1 and by default), after which
// Slurm kills what is left.
func TestScancelDrainsStream(t *testing.T) {
	scancelStream(t, scancelSize(), nil)
}

// TestScancelSignalDrainsPastKillWait: what docs/multinode.md tells a
// user whose drain needs longer than the cluster's KillWait, which only
// its administrator sets: `scancel --signal=TERM JOB` sends SIGTERM to
// the job's steps and no SIGKILL after, so a 700-token stream (6.8 s
// left) completes under KillWait 2 s (slurmd waits max(KillWait, 5 s)),
// every rank exits 0 and the job ends COMPLETED. A plain scancel of the
// same job cut the stream at 507 tokens, 4.7 s after the signal, both
// ranks "Killed by signal 9", while the job's ExitCode still read 0:0:
// only slurmstepd's own lines tell each rank's end.
func TestScancelSignalDrainsPastKillWait(t *testing.T) {
	res := scancelStream(t, scancelCase{nodes: 2, tokens: 700, killWait: defaultKillWait, stop: 10 * time.Second}, []string{"--signal=TERM"})
	if res.State != "COMPLETED" {
		t.Errorf("job state %s, want COMPLETED (the steps ended by themselves)", res.State)
	}
}

// scancelStream submits the generated script for size, starts a stream
// on rank 0, runs `scancel ARGS… JOB` at its 20th event, and checks
// that the stream completes and every rank exits 0; it returns how the
// job ended.
func scancelStream(t *testing.T, size scancelCase, args []string) jobResult {
	t.Helper()
	c := startClusterKillWait(t, size.nodes, size.killWait)
	dir := t.TempDir()
	prof := profileStop(t, dir, size.nodes, size.stop)
	gen := c.client(context.Background(), sglaunchBin, "slurm", "--profile", prof, "--job-name", "sgl-scancel")
	gen.Env = c.sglaunchEnv(dir)
	script, err := gen.Output()
	if err != nil {
		t.Fatalf("sglaunch slurm: %v", err)
	}
	id, err := c.sbatchEnv(context.Background(), string(script), c.sglaunchEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, groupReadyTimeout, "every rank healthy in the job's output", func() bool {
		b, _ := os.ReadFile(c.jobOutput(id))
		return healthyRanks(string(b)) == size.nodes
	})
	leader := c.net.Nodes[0]
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return leader.Dial(ctx, network, addr)
		},
	}}
	tokens := size.tokens
	body := fmt.Sprintf(`{"input_ids":[1,2,3],"sampling_params":{"max_new_tokens":%d,"ignore_eos":true},"stream":true}`, tokens)
	resp, err := client.Post("http://127.0.0.1:30000/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got, seen, done := 0, 0, false
	var at time.Time
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var ev struct {
			Meta struct {
				Completion int `json:"completion_tokens"`
			} `json:"meta_info"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil {
			got = ev.Meta.Completion
		}
		if seen++; seen == 20 {
			at = time.Now()
			if _, err := c.run(context.Background(), "scancel", append(args, id)...); err != nil {
				t.Fatal(err)
			}
		}
	}
	streamEnd := time.Since(at)
	res, err := c.waitJob(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ended := time.Since(at)
	cut := 0
	if got != tokens || !done {
		cut = 1
		t.Errorf("scancel cut the stream at %d of %d tokens (done %v):\n%s", got, tokens, done, res.Output)
	}
	if strings.Contains(res.Output, "group failed") {
		t.Errorf("a rank calls the requested stop a failure:\n%s", res.Output)
	}
	// Rank 0's end line at least: srun stops relaying the workers'
	// output once the step is cancelled, and a worker ends just after
	// rank 0 has drained.
	if !strings.Contains(res.Output, "the group stopped on request") {
		t.Errorf("no rank says the group stopped on request:\n%s", res.Output)
	}
	exits := c.taskExits(t, id+".0")
	statuses := make([]string, size.nodes)
	var last time.Time
	for rank := range size.nodes {
		e, ok := exits[rank]
		statuses[rank] = e.status
		if e.at.After(last) {
			last = e.at
		}
		if !ok || e.status != "exit code 0" {
			t.Errorf("rank %d: %q (logged %v), want exit code 0; slurmstepd's lines:\n%v", rank, e.status, ok, exits)
		}
	}
	t.Logf("scancel %v of %d nodes (KillWait %d s, stop_timeout %v) with a %d-token stream in flight: streams cut %d of 1 (%d tokens delivered), the stream ended %s after scancel, the last rank exited %s after (slurmstepd's stamp, ms); rank exits %q; job %s, exit code %s, seen ended %s after scancel (scontrol polled every 200 ms)",
		args, size.nodes, size.killWait, size.stop, tokens, cut, got, streamEnd.Round(time.Millisecond), last.Sub(at).Round(time.Millisecond), statuses,
		res.State, res.ExitCode, ended.Round(time.Millisecond))
	if res.ExitCode != "0:0" {
		t.Errorf("job exit code %s, want 0:0 (every rank exited 0)", res.ExitCode)
	}
	c.noneLeft(t)
	return res
}

// taskExitLine is slurmstepd's line for a task's end (mgr.c,
// _log_task_exit, at SlurmdDebug=verbose), after the log's ISO 8601
// stamp: "[2026-12-02T11:01:59.512] [12.0] task 1 (4242) exited with
// exit code 0." or "… exited. Killed by signal 9.".
var taskExitLine = regexp.MustCompile(`(?m)^\[([0-9T:.-]+)\] \[(\d+\.\d+)\] task (\d+) \(\d+\) exited(?: with (exit code \d+)|\. Killed by (signal \d+))`)

// taskExit is how one task of a step ended, and when.
type taskExit struct {
	status string // "exit code N" or "signal N"
	at     time.Time
}

// taskExits reads how each task of step (JOB.STEP) ended from every
// node's slurmd log: task number (the rank, one task a node) to its end.
func (c *cluster) taskExits(t *testing.T, step string) map[int]taskExit {
	t.Helper()
	out := map[int]taskExit{}
	for _, name := range c.names {
		b, err := os.ReadFile(filepath.Join(c.dir, name, "slurmd.log"))
		if err != nil {
			t.Errorf("%s's slurmd log: %v", name, err)
			continue
		}
		for _, m := range taskExitLine.FindAllStringSubmatch(string(b), -1) {
			if m[2] != step {
				continue
			}
			task, _ := strconv.Atoi(m[3])
			at, _ := time.ParseInLocation("2006-01-02T15:04:05.000", m[1], time.Local)
			out[task] = taskExit{status: m[4] + m[5], at: at}
		}
	}
	return out
}
