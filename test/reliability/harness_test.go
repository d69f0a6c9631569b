package reliability

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds for a loaded 2-core machine.
const (
	startBound = 90 * time.Second // a serve or bench to say healthy
	exitBound  = 2 * time.Minute  // sglaunch to exit after a stop
	goneBound  = 10 * time.Second // processes killed with sglaunch to die
)

var (
	sglaunchBin string
	stubBin     string
	cacheDir    string
)

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	return testkit.RunWithWorkspace(m, "sglaunch-reliability-", func(w *testkit.Workspace) error {
		sglaunchBin, cacheDir = w.Bin, w.Cache
		stubBin = filepath.Join(w.Dir, "stubserver")
		if out, err := exec.Command("go", "build", "-o", stubBin, "github.com/sglaunch/sglaunch/test/perf/stubserver").CombinedOutput(); err != nil {
			return fmt.Errorf("build stubserver: %v\n%s", err, out)
		}
		return nil
	})
}

// count reads a scenario count: the variable, else full under
// SGLAUNCH_RELIABILITY=full, else short.
func count(t *testing.T, name string, short, full int) int {
	t.Helper()
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a count", name, v)
		}
		return n
	}
	if os.Getenv("SGLAUNCH_RELIABILITY") == "full" {
		return full
	}
	return short
}

// tally counts tries and failures per scenario and reports the table.
type tally struct {
	mu    sync.Mutex
	order []string
	tries map[string]int
	fails map[string]int
}

func newTally() *tally { return &tally{tries: map[string]int{}, fails: map[string]int{}} }

func (ta *tally) add(scenario string, failed bool) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if _, ok := ta.tries[scenario]; !ok {
		ta.order = append(ta.order, scenario)
	}
	ta.tries[scenario]++
	if failed {
		ta.fails[scenario]++
	}
}

// report logs the table and appends its rows to
// $SGLAUNCH_RELIABILITY_REPORT when set.
func (ta *tally) report(t *testing.T) {
	t.Helper()
	var rows []string
	for _, s := range ta.order {
		rows = append(rows, fmt.Sprintf("| %s | %d | %d |", s, ta.tries[s], ta.fails[s]))
	}
	t.Logf("scenario | tries | failures\n%s", strings.Join(rows, "\n"))
	if path := os.Getenv("SGLAUNCH_RELIABILITY_REPORT"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintln(f, strings.Join(rows, "\n"))
	}
}

// env is an isolated environment for sglaunch runs: its own config,
// state, runtime and temporary directories, one shared simulator cache.
type env struct {
	t    *testing.T
	dir  string
	vars []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"config/sglaunch/profiles", "state", "run", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return &env{t: t, dir: dir, vars: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8", "TMPDIR=" + filepath.Join(dir, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_CACHE_HOME=" + cacheDir,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(dir, "state", "sglaunch"),
		"SGLAUNCH_RUNTIME_DIR=" + filepath.Join(dir, "run", "sglaunch"),
	}}
}

// profile writes a profile running the simulator with tp 2 on port,
// with the SGLANG_SIM_* variables of sim and extra YAML.
func (e *env) profile(name string, port int, sim map[string]string, extra string) {
	e.t.Helper()
	keys := make([]string, 0, len(sim))
	for k := range sim {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "python: %s\nenv:\n  PYTHONPATH: ${SGLAUNCH_SIM_DIR}\n", testkit.RealPython(e.t))
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %q\n", k, sim[k])
	}
	fmt.Fprintf(&b, "args:\n  model-path: sim/model\n  tp: 2\n  port: %d\n%s", port, extra)
	if err := os.WriteFile(filepath.Join(e.dir, "config", "sglaunch", "profiles", name+".yaml"), []byte(b.String()), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// run is one sglaunch process.
type run struct {
	cmd    *exec.Cmd
	stderr *testkit.SyncBuffer
	stdout *testkit.SyncBuffer
	done   chan struct{}
}

func (e *env) start(args ...string) *run {
	e.t.Helper()
	r := &run{cmd: exec.Command(sglaunchBin, args...), stderr: &testkit.SyncBuffer{}, stdout: &testkit.SyncBuffer{}, done: make(chan struct{})}
	r.cmd.Env, r.cmd.Dir = e.vars, e.dir
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := r.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	e.t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			<-r.done
		}
	})
	return r
}

// waitFor waits until the stderr holds s; false if sglaunch exited or
// the bound passed first.
func (r *run) waitFor(s string, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for !strings.Contains(r.stderr.String(), s) {
		select {
		case <-r.done:
			return strings.Contains(r.stderr.String(), s)
		default:
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// wait waits for sglaunch to exit; false when it did not within bound.
func (r *run) wait(bound time.Duration) bool {
	select {
	case <-r.done:
		return true
	case <-time.After(bound):
		return false
	}
}

// tree is a snapshot of the processes under a pid, by identity.
func tree(pid int) []proc.Identity {
	kids, _ := proc.Descendants(pid)
	var out []proc.Identity
	for _, k := range kids {
		if id, err := proc.IdentityOf(k); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// survivors returns the members of a snapshot that still run, and kills
// them so that one failure does not spoil the next try.
func survivors(ids []proc.Identity) []string {
	var out []string
	for _, id := range ids {
		if id.Running() {
			argv, _ := proc.Cmdline(id.PID)
			out = append(out, fmt.Sprintf("%d %q", id.PID, argv))
			_ = syscall.Kill(id.PID, syscall.SIGKILL)
		}
	}
	return out
}

// waitGone waits up to goneBound for the snapshot to die, then returns
// the survivors.
func waitGone(ids []proc.Identity) []string {
	deadline := time.Now().Add(goneBound)
	for time.Now().Before(deadline) {
		alive := false
		for _, id := range ids {
			if id.Running() {
				alive = true
				break
			}
		}
		if !alive {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return survivors(ids)
}

type procID = proc.Identity

// comm is the kernel's name of pid ("" when gone).
func comm(pid int) string {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return ""
	}
	return st.Comm
}
