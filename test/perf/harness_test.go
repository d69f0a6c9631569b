package perf

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

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds for one run; a benchmark that hits one is broken.
const (
	runTimeout = 2 * time.Minute
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	workDir   string
)

// sglaunch builds the binary once per benchmark run.
func sglaunch(b *testing.B) string {
	b.Helper()
	buildOnce.Do(func() {
		workDir, buildErr = os.MkdirTemp("", "sglaunch-perf-")
		if buildErr != nil {
			return
		}
		binPath, buildErr = testkit.BuildSglaunch(workDir)
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binPath
}

// python is the interpreter itself, not a shim that execs another.
func python(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatalf("python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// env is an isolated environment for sglaunch with a profile "perf".
type env struct {
	dir  string
	vars []string
}

func newEnv(b *testing.B, simEnv map[string]string, extra string) *env {
	b.Helper()
	dir := b.TempDir()
	e := &env{dir: dir, vars: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CACHE_HOME=" + filepath.Join(workDir, "cache"),
		"SGLAUNCH_STATE_DIR=" + filepath.Join(dir, "state", "sglaunch"),
	}}
	keys := make([]string, 0, len(simEnv))
	for k := range simEnv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var envYAML strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&envYAML, "  %s: %q\n", k, simEnv[k])
	}
	profiles := filepath.Join(dir, "config", "sglaunch", "profiles")
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		b.Fatal(err)
	}
	yaml := fmt.Sprintf("python: %s\nenv:\n  PYTHONPATH: ${SGLAUNCH_SIM_DIR}\n%sargs:\n  model-path: sim/model\n  tp: 2\n  port: %d\n%s",
		python(b), envYAML.String(), testkit.FreePort(b), extra)
	if err := os.WriteFile(filepath.Join(profiles, "perf.yaml"), []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

func (e *env) command(b *testing.B, args ...string) *exec.Cmd {
	cmd := exec.Command(sglaunch(b), args...)
	cmd.Env = append([]string(nil), e.vars...)
	cmd.Dir = e.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// events reads the sim's SGLANG_SIM_EVENTS file: "NAME UNIX_NANOS" lines.
func events(b *testing.B, path string) map[string]time.Time {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("sim events: %v (does the sim support SGLANG_SIM_EVENTS?)", err)
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, ns, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil {
			b.Fatalf("sim events: bad line %q", line)
		}
		if _, seen := out[name]; !seen {
			out[name] = time.Unix(0, n)
		}
	}
	return out
}

// stats reports the median, p90 and max of samples in milliseconds.
func stats(b *testing.B, name string, samples []time.Duration) {
	b.Helper()
	if len(samples) == 0 {
		return
	}
	s := append([]time.Duration(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(s[len(s)/2]), name+"-median-ms")
	b.ReportMetric(ms(s[len(s)*9/10]), name+"-p90-ms")
	b.ReportMetric(ms(s[len(s)-1]), name+"-max-ms")
	b.ReportMetric(0, "ns/op") // a wall time per iteration means nothing here
}

// descendants returns the live descendants of pid through /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := stat(p); ok && st.state != 'Z' {
			children[st.ppid] = append(children[st.ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

type procStat struct {
	ppid  int
	state byte
}

func stat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return procStat{}, false
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{ppid: ppid, state: f[0][0]}, true
}

func alive(pid int) bool {
	st, ok := stat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// vmHWM is a process's peak resident set size in KiB.
func vmHWM(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}
