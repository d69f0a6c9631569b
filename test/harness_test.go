package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds: these tests must not flake on a loaded 2-core machine.
const (
	commandTimeout = 2 * time.Minute
	waitTimeout    = 30 * time.Second
	// minParallel is how many tests run at once unless -parallel
	// says: a test here spends most of its time waiting for the sim
	// (python's start-up, the simulated load and stop), not computing.
	minParallel = 4
)

var (
	sglaunchBin string // built once by TestMain
	sharedCache string // one unpacked simulator for all tests
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	testkit.MinParallel(minParallel)
	return testkit.RunWithWorkspace(m, "sglaunch-e2e-", func(w *testkit.Workspace) error {
		sglaunchBin, sharedCache = w.Bin, w.Cache
		return nil
	})
}

// testEnv is an isolated environment for one sglaunch invocation: its own
// config, state and runtime directories, the shared simulator cache, and
// the caller's PATH and HOME.
type testEnv struct {
	t    *testing.T
	Dir  string            // scratch directory for the test
	Vars map[string]string // the environment sglaunch gets
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{t: t, Dir: dir, Vars: map[string]string{
		"PATH":               os.Getenv("PATH"),
		"HOME":               dir,
		"LANG":               "C.UTF-8",
		"XDG_CONFIG_HOME":    filepath.Join(dir, "config"),
		"XDG_STATE_HOME":     filepath.Join(dir, "state"),
		"XDG_RUNTIME_DIR":    filepath.Join(dir, "run"),
		"XDG_CACHE_HOME":     sharedCache,
		"SGLAUNCH_STATE_DIR": filepath.Join(dir, "state", "sglaunch"),
		// Root's default is /run/sglaunch, shared by every test.
		"SGLAUNCH_RUNTIME_DIR": filepath.Join(dir, "run", "sglaunch"),
	}}
	for _, d := range []string{"config", "state", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *testEnv) environ() []string {
	var out []string
	for k, v := range e.Vars {
		out = append(out, k+"="+v)
	}
	return out
}

// Profile writes a profile file into the test's search path and returns its path.
func (e *testEnv) Profile(name, yaml string) string {
	e.t.Helper()
	dir := filepath.Join(e.Dir, "config", "sglaunch", "profiles")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// Proc is a running sglaunch.
type Proc struct {
	Cmd            *exec.Cmd
	stdout, stderr *testkit.SyncBuffer
	done           chan struct{}
	code           int
}

// Start starts sglaunch with args in its own process group.
func (e *testEnv) Start(args ...string) *Proc {
	e.t.Helper()
	cmd := exec.Command(sglaunchBin, args...)
	cmd.Env = e.environ()
	cmd.Dir = e.Dir
	p := &Proc{Cmd: cmd, stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		e.t.Fatalf("start sglaunch: %v", err)
	}
	go func() {
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.code = 128 + int(ws.Signal())
		}
		close(p.done)
	}()
	e.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
	})
	return p
}

// Wait waits for sglaunch to exit and returns its exit status.
func (p *Proc) Wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(timeout):
		t.Fatalf("sglaunch still running after %v\nstdout:\n%s\nstderr:\n%s", timeout, p.Stdout(), p.Stderr())
		return -1
	}
}

// Done is closed when sglaunch has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

func (p *Proc) Stdout() string { return p.stdout.String() }
func (p *Proc) Stderr() string { return p.stderr.String() }

// Run runs sglaunch to completion and returns stdout, stderr and its exit status.
func (e *testEnv) Run(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	p := e.Start(args...)
	code = p.Wait(e.t, commandTimeout)
	return p.Stdout(), p.Stderr(), code
}
