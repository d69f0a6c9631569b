package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// binTimeout bounds one run of the binary: these commands return in well
// under a second, but the machine may be loaded.
const binTimeout = 2 * time.Minute

var (
	buildOnce sync.Once
	workspace *testkit.Workspace // sglaunch built once, on the first cliRun
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if workspace != nil {
		workspace.Close()
	}
	os.Exit(code)
}

// sglaunchBin is the sglaunch binary, built once per test binary (and
// only when a test runs it).
func sglaunchBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { workspace, buildErr = testkit.NewWorkspace("sglaunch-cli-") })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return workspace.Bin
}

// cliRun runs the sglaunch binary with args, as a user's shell would, in
// an environment of its own: PATH, a private HOME (also the working
// directory, where -o FILE lands), XDG directories, state and runtime
// directories under it, and vars on top. It returns the exit status
// (128+N where signal N ended it).
func cliRun(t *testing.T, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin := sglaunchBin(t)
	home := t.TempDir()
	env := map[string]string{
		"PATH":                 os.Getenv("PATH"),
		"HOME":                 home,
		"LANG":                 "C.UTF-8",
		"XDG_CONFIG_HOME":      filepath.Join(home, "config"),
		"XDG_STATE_HOME":       filepath.Join(home, "state"),
		"XDG_RUNTIME_DIR":      filepath.Join(home, "run"),
		"XDG_CACHE_HOME":       workspace.Cache,
		"SGLAUNCH_STATE_DIR":   filepath.Join(home, "state", "sglaunch"),
		"SGLAUNCH_RUNTIME_DIR": filepath.Join(home, "run", "sglaunch"),
	}
	for k, v := range vars {
		env[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), binTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = home
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sglaunch %q did not end within %v\n%s%s", args, binTimeout, out.String(), errOut.String())
	}
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("run sglaunch: %v", err)
	}
	code = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	return code, out.String(), errOut.String()
}
