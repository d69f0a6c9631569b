package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestVerifyThroughPythonShim: with python3 a pyenv-style shim (a bash
// script that execs the real interpreter), the runtime state recorded
// the executable at fork time (bash), the identity check failed once it
// was python, and verify called the running server "gone" (exit 2) while
// status said ready. The identity is now the pid, its start time and
// the boot, which exec keeps.
func TestVerifyThroughPythonShim(t *testing.T) {
	e := newEnv(t)
	shim := filepath.Join(t.TempDir(), "python3")
	script := fmt.Sprintf("#!/usr/bin/env bash\nset -e\nexec %q \"$@\"\n", testkit.RealPython(t))
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	port := testkit.FreePort(t)
	e.Profile("shim", fmt.Sprintf(`python: %s
env:
  PYTHONPATH: ${SGLAUNCH_SIM_DIR}
  SGLANG_SIM_LOAD_SECONDS: "0.3"
args:
  model-path: sim/model
  tp: 2
  port: %d
`, shim, port))
	p, _ := serveHealthy(t, e, "shim", port)
	defer func() {
		_ = p.Cmd.Process.Signal(os.Interrupt)
		p.Wait(t, commandTimeout)
	}()
	stdout, stderr, code := e.Run("verify", "--profile", "shim")
	if code != 0 {
		t.Errorf("verify through a python shim: exit %d, want 0 (MATCH)\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = e.Run("status", "--profile", "shim")
	if code != 0 || !strings.Contains(stdout, "ready") {
		t.Errorf("status: exit %d, want 0 and ready\n%s%s", code, stdout, stderr)
	}
}
