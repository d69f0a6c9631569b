package perfenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

var (
	buildOnce sync.Once
	binPath   string
	cacheDir  string
	buildErr  error
)

// Binary builds sglaunch once per test binary and returns its path.
func Binary(b testing.TB) string {
	b.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sglaunch-perf-")
		if err != nil {
			buildErr = err
			return
		}
		cacheDir = filepath.Join(dir, "cache")
		binPath, buildErr = testkit.BuildSglaunch(dir)
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binPath
}

// Env is an isolated environment for sglaunch with a profile "perf".
type Env struct {
	Dir  string // HOME, with config/, state/ and run/ under it
	vars []string
}

// New makes an environment whose profile "perf" runs the simulator with
// the SGLANG_SIM_* settings in simEnv, plus extra top-level YAML.
func New(b testing.TB, simEnv map[string]string, extra string) *Env {
	b.Helper()
	Binary(b)
	dir := b.TempDir()
	e := &Env{Dir: dir, vars: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CACHE_HOME=" + cacheDir,
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
		testkit.RealPython(b), envYAML.String(), testkit.FreePort(b), extra)
	if err := os.WriteFile(filepath.Join(profiles, "perf.yaml"), []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	return e
}

// Command is sglaunch with args in the environment, in its own process
// group so that a benchmark can signal the whole tree.
func (e *Env) Command(b testing.TB, args ...string) *exec.Cmd {
	cmd := exec.Command(Binary(b), args...)
	cmd.Env = append([]string(nil), e.vars...)
	cmd.Dir = e.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}
