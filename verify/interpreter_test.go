package verify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
)

// pythons makes, beside the real interpreter, a venv whose python is a
// symlink to it and a pyenv-style shim that execs it.
func pythons(t *testing.T) (real, venvPy, shim string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(testkit.RealPython(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	venv := filepath.Join(dir, "venv")
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = "+filepath.Dir(real)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	venvPy = filepath.Join(venv, "bin", "python3")
	if err := os.Symlink(real, venvPy); err != nil {
		t.Fatal(err)
	}
	shim = filepath.Join(dir, "shims", "python3")
	if err := os.MkdirAll(filepath.Dir(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, []byte("#!/bin/sh\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return real, venvPy, shim
}

// TestInterpreterIdentity pins B3's interpreter half: a pyenv shim was
// compared with the interpreter it hands off to, by path, and differed.
func TestInterpreterIdentity(t *testing.T) {
	real, venvPy, shim := pythons(t)
	ctx := context.Background()
	resolved := func(py string) Interpreter {
		exp := Resolve(ctx, Expected{Python: py, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		if exp.Interpreter == nil {
			t.Fatalf("%s: not resolved", py)
		}
		return *exp.Interpreter
	}
	if got := resolved(shim); !got.Same(interpreterOf(real, "")) {
		t.Errorf("shim %s resolves to %+v, want the interpreter it runs (%s)", shim, got, real)
	}
	venv := resolved(venvPy)
	if venv.Venv != filepath.Dir(filepath.Dir(venvPy)) {
		t.Errorf("venv python %s: venv %q, want %q", venvPy, venv.Venv, filepath.Dir(filepath.Dir(venvPy)))
	}
	if venv.Same(interpreterOf(real, "")) {
		t.Error("a venv's python is the same as its base interpreter: the venv's packages differ")
	}

	// The server process, started through each path, as verify sees it.
	for _, tt := range []struct {
		name, python string
		want         Interpreter
	}{
		{"shim", shim, resolved(shim)},
		{"venv", venvPy, venv},
		{"real", real, interpreterOf(real, "")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.python, "-c", "import sys; sys.stdin.read()")
			stdin, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			var got *Interpreter
			testkit.WaitFor(t, interpreterWait, "python's argv", func() bool {
				p := readProcess(cmd.Process.Pid)
				got = observedInterpreter(p)
				return got != nil && len(p.Argv) > 1 && p.Argv[1] == "-c"
			})
			if !got.Same(tt.want) {
				t.Errorf("observed %+v, want the same interpreter as %+v", *got, tt.want)
			}
		})
	}
}

func TestCompareRuntime(t *testing.T) {
	same := &Interpreter{Path: "/srv/venv/bin/python3", Exe: "/usr/bin/python3.11", Venv: "/srv/venv"}
	base := &Interpreter{Path: "/usr/bin/python3", Exe: "/usr/bin/python3.11"}
	exp := expected()
	exp.Python, exp.Interpreter, exp.SGLang = same.Path, same, "0.5.10"
	o := obs(Process{PID: 7, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")})
	o.Version = "0.5.10"

	o.Interpreter = same
	if r := Compare(exp, o); !r.OK() {
		t.Errorf("same interpreter and version: drift\n%s", rowsText(r))
	}
	// B2: the interpreter and the version were never compared, so a
	// service on another interpreter verified as MATCH.
	o.Interpreter, o.Version = base, "0.5.9"
	r := Compare(exp, o)
	if r.Drift != 2 || !strings.Contains(rowsText(r), "DIFFERENT python") || !strings.Contains(rowsText(r), "DIFFERENT sglang version") {
		t.Errorf("got %d drifting rows, want python and sglang version:\n%s", r.Drift, rowsText(r))
	}
}

// TestDeploymentSideReadsPlannedNames pins B3's other half: diff read
// only managed names on the live side, so a PYTHONPATH the plan sets
// showed as drift on a deployment that matched exactly. diff now judges
// a deployment as verify does, which reads every name the plan sets.
func TestDeploymentSideReadsPlannedNames(t *testing.T) {
	o := obs(Process{PID: 7, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "PYTHONPATH=/sim", "HOME=/root")})
	exp := expected()
	exp.Env = map[string]string{"NCCL_ALGO": "Ring", "PYTHONPATH": "/sim"}
	exp.EnvOrder = []string{"NCCL_ALGO", "PYTHONPATH"}
	exp.Argv = serverArgv()
	r := Compare(exp, o)
	seen := map[string]string{}
	for _, row := range r.Rows {
		seen[row.Setting] = row.Status
	}
	if seen["PYTHONPATH"] != plan.Match {
		t.Errorf("PYTHONPATH not read: %v", seen)
	}
	if _, ok := seen["HOME"]; ok {
		t.Errorf("HOME read: neither managed nor planned: %v", seen)
	}
	if rows := r.Differences(); len(rows) != 0 {
		t.Errorf("differences on a matching deployment: %+v", rows)
	}
}

// interpreterWait bounds the wait for a python to start: generous, for a
// loaded 2-core machine.
const interpreterWait = 30 * time.Second
