package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestTuneJobArray: `sglaunch tune --slurm` plans a tune and prints a job
// array; under the real Slurm its two tasks measure their shares of the
// points on a node each, into the tune's directory; `tune --resume` then
// collects every point and, with none left to measure, judges without
// launching a server again.
func TestTuneJobArray(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof, space := writeTuneFiles(t, dir, "")
	tuneDir := filepath.Join(dir, "tune1")
	script := planTune(t, c, dir, "--profile", prof, "--space", space, "--slurm", "--tasks", "2", "--skip-preflight", "--dir", tuneDir)
	if !strings.Contains(script, "#SBATCH --array=0-1") || !strings.Contains(script, "--stage 0") {
		t.Fatalf("stage 0's array has not 2 tasks of stage 0:\n%s", script)
	}
	logs := runArray(t, c, dir, script, 2)
	for _, k := range []string{"0", "1"} {
		if _, err := os.Stat(filepath.Join(tuneDir, "shard-0-"+k+".json")); err != nil {
			t.Errorf("task %s left no share: %v\n%s", k, err, logs)
		}
	}

	out, stderr := resumeTune(t, c, dir, tuneDir)
	if !strings.Contains(stderr, "collected 4 point(s)") || strings.Contains(stderr, "launching") || strings.Contains(out, "#SBATCH") {
		t.Errorf("the resume did not collect the 4 points and judge without a launch or another array:\n%s\n%s", stderr, out)
	}
	rec := readTune(t, tuneDir)
	if len(rec.Points) != 4 || rec.Verdict == nil {
		t.Fatalf("tune record: %+v", rec)
	}
	for i, p := range rec.Points {
		if p.Status != "ok" || p.Launches != 1 {
			t.Errorf("point %d: %s with %d launches, want ok with 1", i, p.Status, p.Launches)
		}
	}
	c.noneLeft(t)
}

// TestTuneJobArrayStages: under halving, each `tune --resume` of a tune
// --slurm collects the stage's shares and prints the next stage's job
// array, of just the contenders kept and the baseline, instead of
// measuring them itself; under the real Slurm stage 0 gives every point
// one round, stage 1 the best two contenders and the baseline 1 + 2
// rounds, stage 2 the best one and the baseline 1 + 2×2; the last resume
// judges, and the winner is the optimum of the simulator's surface.
func TestTuneJobArrayStages(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof, space := writeTuneFiles(t, dir, "strategy: halving\nkeep: 0.5\nrounds: 2\n")
	tuneDir := filepath.Join(dir, "tune1")
	script := planTune(t, c, dir, "--profile", prof, "--space", space, "--slurm", "--tasks", "2", "--skip-preflight", "--dir", tuneDir)
	want := []struct {
		tasks  string
		points []int // the stage's points, each to rounds
		rounds int
	}{
		{"0-1", []int{0, 1, 2, 3}, 1},
		{"0-1", []int{3, 2, 0}, 3}, // LL128, LL, the baseline
		{"0-1", []int{3, 0}, 5},
	}
	for stage, w := range want {
		if !strings.Contains(script, "#SBATCH --array="+w.tasks) || !strings.Contains(script, fmt.Sprintf("--stage %d ", stage)) {
			t.Fatalf("stage %d: the array is not of tasks %s of this stage:\n%s", stage, w.tasks, script)
		}
		rec := readTune(t, tuneDir)
		var got []int
		for _, it := range rec.Array.Stage.Items {
			got = append(got, it.Point)
			if it.Rounds != w.rounds {
				t.Errorf("stage %d: point %d to %d rounds, want %d", stage, it.Point, it.Rounds, w.rounds)
			}
		}
		if rec.Array.Stage.N != stage || fmt.Sprint(got) != fmt.Sprint(w.points) {
			t.Fatalf("stage %d: the record plans stage %d of points %v, want %v", stage, rec.Array.Stage.N, got, w.points)
		}
		runArray(t, c, dir, script, 2)
		var stderr string
		script, stderr = resumeTune(t, c, dir, tuneDir)
		if strings.Contains(stderr, "launching") {
			t.Fatalf("stage %d: the resume launched a server itself:\n%s", stage, stderr)
		}
	}
	if strings.Contains(script, "#SBATCH") {
		t.Fatalf("after stage 2 the resume printed another array, want the judgement:\n%s", script)
	}
	rec := readTune(t, tuneDir)
	wantRounds := map[int][2]int{0: {3, 5}, 1: {1, 1}, 2: {2, 3}, 3: {3, 5}} // launches, rounds
	for i, p := range rec.Points {
		w := wantRounds[i]
		if p.Status != "ok" || p.Launches != w[0] || len(p.Rounds) != w[1] || len(p.Records) != w[0] {
			t.Errorf("point %d (%s): %s with %d launches, %d rounds, %d records; want ok with %d, %d, %d", i, p.Raced, p.Status, p.Launches, len(p.Rounds), len(p.Records), w[0], w[1], w[0])
		}
	}
	if rec.Verdict == nil || rec.Verdict.Winner != 3 {
		t.Errorf("verdict %+v, want point 3 (LL128), the surface's optimum", rec.Verdict)
	}
	c.noneLeft(t)
}

// tuneRecord is what the tests read of a tune record.
type tuneRecord struct {
	Points []struct {
		Status   string           `json:"status"`
		Launches int              `json:"launches"`
		Rounds   []map[string]any `json:"rounds"`
		Records  []string         `json:"records"`
		Raced    string           `json:"raced"`
	} `json:"points"`
	Array struct {
		Stage struct {
			N     int `json:"n"`
			Items []struct {
				Point  int `json:"point"`
				Rounds int `json:"rounds"`
			} `json:"items"`
		} `json:"stage"`
	} `json:"array"`
	Verdict *struct {
		Winner int    `json:"winner"`
		Text   string `json:"text"`
	} `json:"verdict"`
}

func readTune(t *testing.T, dir string) tuneRecord {
	t.Helper()
	var rec tuneRecord
	b, err := os.ReadFile(filepath.Join(dir, "tune.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil {
		t.Fatalf("tune record: %v", err)
	}
	return rec
}

// writeTuneFiles writes a base profile on the simulator's performance
// model and a space over NCCL_PROTO (Simple, LL, LL128: the optimum), with
// more of the space's settings.
func writeTuneFiles(t *testing.T, dir, more string) (prof, space string) {
	t.Helper()
	prof = filepath.Join(dir, "tb.yaml")
	if err := os.WriteFile(prof, []byte(fmt.Sprintf(`name: tb
python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_TTFT_MS: "20"
  SGLANG_SIM_ITL_MS: "10"
  SGLANG_SIM_LOAD_SECONDS: "0.3"
  SGLANG_SIM_WARMUP_SECONDS: "0.05"
  SGLANG_SIM_DRAIN_POLL_SECONDS: "0.05"
  SGLANG_SIM_SHUTDOWN_WAIT_SECONDS: "0.2"
  SGLANG_SIM_PERF_MODEL: "1"
args:
  model-path: sim/model
  tp: 1
  port: 30000
health: {poll_interval: 50ms}
bench:
  workloads:
    - {name: quick, input_len: 32, output_len: 10, concurrency: [1], requests: 4, rounds: 3, warmup: 0}
`, testkit.PythonWithSetproctitle(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	space = filepath.Join(dir, "space.yaml")
	if err := os.WriteFile(space, []byte("parameters:\n  env.NCCL_PROTO: [Simple, LL, LL128]\nobjective: {workload: quick, metric: median_tpot_ms}\n"+more), 0o644); err != nil {
		t.Fatal(err)
	}
	return prof, space
}

// planTune runs sglaunch tune --slurm and returns the script it prints.
func planTune(t *testing.T, c *cluster, dir string, args ...string) string {
	t.Helper()
	gen := c.client(context.Background(), sglaunchBin, append([]string{"tune"}, args...)...)
	gen.Env = c.sglaunchEnv(dir)
	var stderr strings.Builder
	gen.Stderr = &stderr
	script, err := gen.Output()
	if err != nil {
		t.Fatalf("sglaunch tune --slurm: %v\n%s\n%s", err, script, stderr.String())
	}
	return string(script)
}

// resumeTune runs sglaunch tune --resume and returns its stdout and stderr.
func resumeTune(t *testing.T, c *cluster, dir, tuneDir string) (string, string) {
	t.Helper()
	res := c.client(context.Background(), sglaunchBin, "tune", "--resume", tuneDir, "--skip-preflight")
	res.Env = c.sglaunchEnv(dir)
	var stderr strings.Builder
	res.Stderr = &stderr
	out, err := res.Output()
	if err != nil {
		t.Fatalf("tune --resume: %v\n%s\n%s", err, out, stderr.String())
	}
	return string(out), stderr.String()
}

// runArray submits a job array of n tasks and waits until every task
// ended, each well; it returns the tasks' output.
func runArray(t *testing.T, c *cluster, dir, script string, n int) string {
	t.Helper()
	id, err := c.sbatchEnv(context.Background(), script, c.sglaunchEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobTimeout)
	defer cancel()
	var states []string
	for {
		out, err := c.run(ctx, "scontrol", "-o", "show", "job", id)
		states = nil
		done := err == nil
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := fields(line)
			states = append(states, f["JobState"]+" "+f["ExitCode"])
			done = done && finalStates[f["JobState"]]
		}
		if done && len(states) == n {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the job array has not ended within %v: %v", jobTimeout, states)
		case <-time.After(200 * time.Millisecond):
		}
	}
	outs, _ := filepath.Glob(filepath.Join(c.dir, "job-"+id+"*.out"))
	var logs strings.Builder
	for _, o := range outs {
		b, _ := os.ReadFile(o)
		logs.Write(b)
	}
	for _, s := range states {
		if s != "COMPLETED 0:0" {
			t.Fatalf("a task of the array ended %s; want COMPLETED 0:0\n%s", s, logs.String())
		}
	}
	return logs.String()
}
