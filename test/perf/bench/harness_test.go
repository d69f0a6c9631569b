package benchperf

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

// sglaunch builds the binary once per benchmark run.
func sglaunch(b *testing.B) string {
	b.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sglaunch-benchperf-")
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

// env is an isolated environment for sglaunch with a profile "perf" that
// runs the simulator with simEnv, plus extra top-level YAML.
type env struct {
	dir  string
	vars []string
}

func newEnv(b *testing.B, simEnv map[string]string, extra string) *env {
	b.Helper()
	sglaunch(b)
	dir := b.TempDir()
	e := &env{dir: dir, vars: []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CACHE_HOME=" + cacheDir,
		"SGLAUNCH_STATE_DIR=" + filepath.Join(dir, "state", "sglaunch"),
	}}
	python, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatalf("python3: %v", err)
	}
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
		strings.TrimSpace(string(python)), envYAML.String(), testkit.FreePort(b), extra)
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
