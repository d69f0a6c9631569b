package verify

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"
)

// probeTimeout bounds the expected interpreter's start.
const probeTimeout = 30 * time.Second

// Interpreter is which Python a path runs, in a form two paths can be
// compared in: a pyenv shim hands off to another file, a venv's python
// is a symlink to the base interpreter but runs with the venv's
// packages. Two interpreters are the same when they execute the same
// file (symlinks resolved) in the same venv.
type Interpreter struct {
	Path string `json:"path"`           // as named: the plan's python, the server's argv[0]
	Exe  string `json:"exe"`            // the file it executes, symlinks resolved
	Venv string `json:"venv,omitempty"` // the virtual environment it runs in
}

// Same reports whether a and b run the same interpreter; false when
// either is unknown.
func (a Interpreter) Same(b Interpreter) bool {
	return a.Exe != "" && a.Exe == b.Exe && a.Venv == b.Venv
}

// key is the comparable form, for plan.Side.
func (a Interpreter) key() string {
	if a.Exe == "" {
		return ""
	}
	return a.Exe + " (venv " + a.Venv + ")"
}

// describe is what a report shows beyond the path: the file it runs.
func (a Interpreter) describe() string {
	s := a.Exe
	if a.Venv != "" {
		s += " in venv " + a.Venv
	}
	return s
}

// interpreterOf resolves path, which reports executable as its
// sys.executable ("" when it was not asked): the file a shim hands off
// to, or the venv's own python.
func interpreterOf(path, executable string) Interpreter {
	named := executable
	if named == "" {
		named = path
	}
	in := Interpreter{Path: path, Venv: venvOf(named)}
	if exe, err := filepath.EvalSymlinks(named); err == nil {
		in.Exe = exe
	}
	return in
}

// SameInterpreter reports whether two interpreter paths resolve to the
// same interpreter on this host, without running either.
func SameInterpreter(a, b string) bool { return interpreterOf(a, "").Same(interpreterOf(b, "")) }

// venvOf is the venv a python path belongs to: Python finds pyvenv.cfg
// beside its executable or one directory up.
func venvOf(path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	dir := filepath.Dir(path)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if _, err := os.Stat(filepath.Join(d, "pyvenv.cfg")); err == nil {
			return d
		}
	}
	return ""
}

// observedInterpreter is what the server process runs: /proc/PID/exe
// (what the kernel executes, whatever shim started it) in the venv its
// argv[0] names.
func observedInterpreter(p Process) *Interpreter {
	in := Interpreter{}
	if len(p.Argv) > 0 {
		in.Path = p.Argv[0]
		in.Venv = venvOf(p.Argv[0])
	}
	exe, err := os.Readlink(filepath.Join(proc.Root, strconv.Itoa(p.PID), "exe"))
	if err != nil || strings.HasSuffix(exe, " (deleted)") {
		if in.Path == "" || !filepath.IsAbs(in.Path) {
			return nil
		}
		if exe, err = filepath.EvalSymlinks(in.Path); err != nil {
			return nil
		}
	}
	in.Exe = exe
	if in.Path == "" {
		in.Path = exe
	}
	return &in
}

// Resolve completes the expected side with what its interpreter says
// about itself, run as the server would be (the plan's environment):
// the interpreter it hands off to, and the SGLang version it imports
// (a record keeps the version it was benchmarked with). A probe that
// fails leaves the interpreter resolved from its path alone.
func Resolve(ctx context.Context, exp Expected) Expected {
	if exp.Python == "" {
		return exp
	}
	module := exp.Module
	if module == "" {
		module = "sglang.launch_server"
	}
	var probes *hostprobe.Memo // nil: asks afresh
	p := probes.Python(ctx, hostprobe.PythonSpec{Python: exp.Python, Environ: exp.environ(), Module: module, Timeout: probeTimeout})
	in := interpreterOf(exp.Python, p.Facts.Executable)
	exp.Interpreter = &in
	if exp.SGLang == "" && p.Err == nil {
		exp.SGLang = p.Facts.SGLangVersion
	}
	return exp
}

// environ is the environment the expected interpreter runs with: the
// plan's own, or for a stored plan this one's with the managed variables
// replaced by the plan's.
func (e Expected) environ() []string {
	if e.Environ != nil {
		return e.Environ
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, planned := e.Env[name]; !planned && !plan.MatchManaged(e.Managed, name) {
			env = append(env, kv)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.Env)) {
		env = append(env, name+"="+e.Env[name])
	}
	return env
}

// compareRuntime compares the interpreter and the SGLang version, where
// both sides are known.
func compareRuntime(exp Expected, o *Observation) []plan.Row {
	var rows []plan.Row
	if exp.Interpreter != nil && exp.Interpreter.Exe != "" && o.Interpreter != nil {
		obs := *o.Interpreter
		row := plan.Row{Group: plan.Perf, Kind: "python", Setting: "python", A: exp.Python, B: obs.Path,
			Where: fmt.Sprintf("/proc/%d/exe", o.ServerPID)}
		if exp.Interpreter.Same(obs) {
			row.Status, row.Note = plan.Match, "runs "+obs.describe()
		} else {
			row.Status, row.Note = plan.Different, "expected runs "+exp.Interpreter.describe()+", the server runs "+obs.describe()
		}
		rows = append(rows, row)
	}
	if exp.SGLang != "" && o.Version != "" {
		row := plan.Row{Group: plan.Perf, Kind: "version", Setting: "sglang version", A: exp.SGLang, B: o.Version, Where: "server_info"}
		row.Status = plan.Match
		if exp.SGLang != o.Version {
			row.Status = plan.Different
		}
		rows = append(rows, row)
	}
	return rows
}
