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
// collects every point and judges without launching a server again.
func TestTuneJobArray(t *testing.T) {
	c := startCluster(t, 2)
	dir := t.TempDir()
	prof := filepath.Join(dir, "tb.yaml")
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
	space := filepath.Join(dir, "space.yaml")
	if err := os.WriteFile(space, []byte("parameters:\n  env.NCCL_PROTO: [Simple, LL, LL128]\nobjective: {workload: quick, metric: median_tpot_ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tuneDir := filepath.Join(dir, "tune1")
	gen := c.client(context.Background(), sglaunchBin, "tune", "--profile", prof, "--space", space, "--slurm", "--tasks", "2", "--skip-preflight", "--dir", tuneDir)
	gen.Env = c.sglaunchEnv(dir)
	script, err := gen.Output()
	if err != nil || !strings.Contains(string(script), "#SBATCH --array=0-1") {
		t.Fatalf("sglaunch tune --slurm: %v\n%s", err, script)
	}
	id, err := c.sbatchEnv(context.Background(), string(script), c.sglaunchEnv(dir))
	if err != nil {
		t.Fatal(err)
	}
	// Every task of the array ended, each well.
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
		if done && len(states) == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the job array has not ended within %v: %v", jobTimeout, states)
		case <-time.After(200 * time.Millisecond):
		}
	}
	outs, _ := filepath.Glob(filepath.Join(c.dir, "job-*.out"))
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
	for _, k := range []string{"0", "1"} {
		if _, err := os.Stat(filepath.Join(tuneDir, "shard-"+k+".json")); err != nil {
			t.Errorf("task %s left no share: %v\n%s", k, err, logs.String())
		}
	}

	res := c.client(context.Background(), sglaunchBin, "tune", "--resume", tuneDir, "--skip-preflight")
	res.Env = c.sglaunchEnv(dir)
	var stderr strings.Builder
	res.Stderr = &stderr
	out, err := res.Output()
	if err != nil {
		t.Fatalf("tune --resume: %v\n%s\n%s", err, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "collected 4 point(s)") || strings.Contains(stderr.String(), "launching") {
		t.Errorf("the resume did not collect the 4 points without a launch:\n%s", stderr.String())
	}
	var rec struct {
		Points []struct {
			Status   string `json:"status"`
			Launches int    `json:"launches"`
		} `json:"points"`
		Verdict *struct {
			Winner int `json:"winner"`
		} `json:"verdict"`
	}
	b, err := os.ReadFile(filepath.Join(tuneDir, "tune.json"))
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil || len(rec.Points) != 4 || rec.Verdict == nil {
		t.Fatalf("tune record: %v %+v", err, rec)
	}
	for i, p := range rec.Points {
		if p.Status != "ok" || p.Launches != 1 {
			t.Errorf("point %d: %s with %d launches, want ok with 1", i, p.Status, p.Launches)
		}
	}
	c.noneLeft(t)
}
