package tune

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// tuneTimeout bounds one sglaunch tune: generous for a loaded 2-core
// machine.
const tuneTimeout = 3 * time.Minute

var (
	sglaunchBin string
	cacheDir    string
)

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithWorkspace(m, "sglaunch-tune-", func(w *testkit.Workspace) error {
		sglaunchBin, cacheDir = w.Bin, w.Cache
		return nil
	}))
}

// home is an isolated sglaunch home with the profile "tb" on the sim: a
// short load, fast stops, the performance model on, and one quick
// workload of rounds rounds.
type home struct {
	dir  string
	port int
}

func newHome(t testing.TB, rounds int, extraEnv string) *home {
	t.Helper()
	return newHomeITL(t, rounds, extraEnv, 10)
}

// steadyITL is the sim's base ITL, in milliseconds, for the tests that
// judge a winner: a stall of a loaded machine (tens of milliseconds, on
// two cores under go test -race) is a smaller share of each token's time
// than at 10 ms, where one stalled round once put the optimum within
// noise of the baseline.
const steadyITL = 25

// newHomeITL is newHome with the sim's base ITL in milliseconds.
func newHomeITL(t testing.TB, rounds int, extraEnv string, itlMs int) *home {
	t.Helper()
	h := &home{dir: t.TempDir(), port: testkit.FreePort(t)}
	profiles := filepath.Join(h.dir, "config", "sglaunch", "profiles")
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		t.Fatal(err)
	}
	profile := fmt.Sprintf(`python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_TTFT_MS: "20"
  SGLANG_SIM_ITL_MS: "%d"
  SGLANG_SIM_LOAD_SECONDS: "0.3"
  SGLANG_SIM_WARMUP_SECONDS: "0.05"
  SGLANG_SIM_DRAIN_POLL_SECONDS: "0.05"
  SGLANG_SIM_SHUTDOWN_WAIT_SECONDS: "0.2"
  SGLANG_SIM_PERF_MODEL: "1"
  NCCL_ALGO: Ring
%sargs:
  model-path: sim/model
  tp: 1
  port: %d
health:
  poll_interval: 50ms
bench:
  workloads:
    - {name: quick, input_len: 32, output_len: 10, concurrency: [1], requests: 4, rounds: %d, warmup: 0}
`, testkit.RealPython(t), itlMs, extraEnv, h.port, rounds)
	if err := os.WriteFile(filepath.Join(profiles, "tb.yaml"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *home) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(h.dir, "config"), "XDG_CACHE_HOME=" + cacheDir,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(h.dir, "state"),
		"SGLAUNCH_RUNTIME_DIR=" + filepath.Join(h.dir, "run"),
	}
}

// space writes a space file and returns its path.
func (h *home) space(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(h.dir, fmt.Sprintf("space-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// result is one sglaunch run.
type result struct {
	stdout, stderr string
	code           int
}

// run runs sglaunch in the home and waits for it.
func (h *home) run(t testing.TB, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tuneTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, sglaunchBin, args...)
	cmd.Dir, cmd.Env = h.dir, h.env()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sglaunch %v: %v", args, err)
	}
	return r
}

// tune runs sglaunch tune with the profile tb and wants exit status 0.
func (h *home) tune(t testing.TB, args ...string) result {
	t.Helper()
	r := h.run(t, append([]string{"tune", "--profile", "tb", "--skip-preflight"}, args...)...)
	if r.code != 0 {
		t.Fatalf("sglaunch tune %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

// tuneRecord is the part of a tune record the tests read.
type tuneRecord struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Strategy string `json:"strategy"`
	Note     string `json:"note"`
	Points   []struct {
		N         int                  `json:"n"`
		Sets      []string             `json:"sets"`
		Status    string               `json:"status"`
		Reason    string               `json:"reason"`
		Phase     string               `json:"phase"`
		Launches  int                  `json:"launches"`
		Rounds    []map[string]float64 `json:"rounds"`
		Records   []string             `json:"records"`
		Raced     string               `json:"raced"`
		Objective *struct {
			Mean float64 `json:"mean"`
		} `json:"objective"`
	} `json:"points"`
	Verdict *struct {
		Winner  int    `json:"winner"`
		Text    string `json:"text"`
		Profile string `json:"profile"`
	} `json:"verdict"`
	Timing struct {
		Wall     float64 `json:"wall_s"`
		Points   float64 `json:"points_s"`
		Overhead float64 `json:"overhead_s"`
		PerPoint float64 `json:"overhead_per_point_s"`
		Launches int     `json:"launches"`
		Rounds   int     `json:"rounds"`
	} `json:"timing"`
	dir string
}

// tunes reads every tune record of the home, oldest first.
func (h *home) tunes(t testing.TB) []tuneRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(h.dir, "state", "tunes", "*", "tune.json"))
	var out []tuneRecord
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var r tuneRecord
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r.dir = filepath.Dir(f)
		out = append(out, r)
	}
	return out
}

func (h *home) last(t testing.TB) tuneRecord {
	t.Helper()
	all := h.tunes(t)
	if len(all) == 0 {
		t.Fatal("no tune record")
	}
	return all[len(all)-1]
}

// servers lists the simulator's processes still running: the tests run
// one after another, and every server they start has the package's sim
// directory on its PYTHONPATH.
func servers() []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !strings.Contains(string(env), "PYTHONPATH="+cacheDir) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return out
}

// background is a sglaunch tune left running while the test watches it.
type background struct {
	cmd    *exec.Cmd
	done   chan error // Wait's result
	stderr testkit.SyncBuffer
}

// startTune starts sglaunch tune with the profile tb over space, without
// preflight; the test's end kills it if it still runs.
func (h *home) startTune(t testing.TB, space string) *background {
	t.Helper()
	b := &background{cmd: exec.Command(sglaunchBin, "tune", "--profile", "tb", "--skip-preflight", "--space", space), done: make(chan error, 1)}
	b.cmd.Dir, b.cmd.Env = h.dir, h.env()
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.done <- b.cmd.Wait() }()
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	return b
}

// wantHalvingOf2 checks a halving tune of the two-point NCCL_PROTO space
// (Simple, LL128): LL128 wins; the baseline and LL128 get a relaunch for
// the full rounds, Simple is dropped after its one round.
func wantHalvingOf2(t testing.TB, rec tuneRecord, stdout string) {
	t.Helper()
	if v := rec.Verdict; v == nil || v.Winner != 2 {
		t.Fatalf("got %+v, want point 2 (NCCL_PROTO=LL128) to win\n%s", rec.Verdict, stdout)
	}
	want := map[int]struct{ launches, rounds int }{0: {2, 5}, 1: {1, 1}, 2: {2, 5}}
	for _, p := range rec.Points {
		if w := want[p.N]; p.Launches != w.launches || len(p.Rounds) != w.rounds {
			t.Errorf("point %d: %d launches, %d rounds; want %d and %d", p.N, p.Launches, len(p.Rounds), w.launches, w.rounds)
		}
	}
}
