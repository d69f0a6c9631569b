package reliability

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// benchWorkloads are six short levels and a long one: a kill anywhere in
// the first few seconds lands in the middle of the run.
const benchWorkloads = `bench:
  workloads:
    - name: steps
      input_len: 8
      output_len: 16
      concurrency: [1, 2, 4, 1, 2, 4]
      requests: 4
      warmup: 0
    - name: long
      input_len: 8
      output_len: 100000
      requests: 1
`

// levelDone matches the progress line of a finished level.
var levelDone = regexp.MustCompile(`(?m)^(steps|long) c=\d+: \d+ ok`)

// TestBenchKill9 kills bench with SIGKILL at a random moment of its run
// and counts a try failed when the record is missing or unreadable, or
// holds fewer levels than the progress said were done, or when the
// server outlives sglaunch.
func TestBenchKill9(t *testing.T) {
	t.Parallel()
	kills := count(t, "SGLAUNCH_RELIABILITY_BENCH_KILLS", 2, 20)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 12))
	e := newEnv(t)
	port := testkit.FreePort(t)
	e.profile("killed", port, map[string]string{
		"SGLANG_SIM_LOAD_SECONDS":   "0.3",
		"SGLANG_SIM_WARMUP_SECONDS": "0.1",
		"SGLANG_SIM_TTFT_MS":        "20",
		"SGLANG_SIM_ITL_MS":         "5",
	}, benchWorkloads)
	ta := newTally()
	kept, reported := 0, 0
	for i := range kills {
		delay := time.Duration(rng.Float64() * float64(2500*time.Millisecond))
		k, r, why := benchKill(e, i, delay)
		kept, reported = kept+k, reported+r
		if why != "" {
			t.Errorf("kill %d after %v: %s", i, delay, why)
		}
		ta.add("kill -9 of bench at a random moment", why != "")
	}
	ta.report(t)
	t.Logf("levels reported done before the kills: %d, kept in the records: %d", reported, kept)
}

// benchKill runs one bench, SIGKILLs it delay after the server is ready
// and checks its record; it returns the levels kept and reported done.
func benchKill(e *env, i int, delay time.Duration) (kept, reported int, why string) {
	out := filepath.Join(e.dir, fmt.Sprintf("records-%d", i))
	r := e.start("bench", "--profile", "killed", "--skip-preflight", "--dir", out)
	if !r.waitFor("sglaunch: healthy after ", startBound) {
		return 0, 0, "never got healthy:\n" + tail(r.stderr.String())
	}
	snap := tree(r.cmd.Process.Pid)
	time.Sleep(delay)
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	if !r.wait(exitBound) {
		return 0, 0, "bench did not die"
	}
	reported = len(levelDone.FindAllString(r.stderr.String(), -1))
	files, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if len(files) != 1 {
		return 0, reported, fmt.Sprintf("%d record files", len(files))
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return 0, reported, err.Error()
	}
	var rec struct {
		Status    string `json:"status"`
		Workloads []struct {
			Levels []json.RawMessage `json:"levels"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return 0, reported, "unreadable record: " + err.Error()
	}
	for _, w := range rec.Workloads {
		kept += len(w.Levels)
	}
	switch {
	case rec.Status != "interrupted":
		why = "record status " + rec.Status + ", want interrupted"
	case kept < reported:
		why = fmt.Sprintf("the record keeps %d levels, %d were reported done", kept, reported)
	}
	if left := waitGone(snap); len(left) > 0 && why == "" {
		why = fmt.Sprintf("outlived bench: %v", left)
	}
	return kept, reported, why
}
