package hostprobe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/tail"
)

// probeScript asks the interpreter about itself and the installed SGLang
// without importing sglang: importlib.metadata for the version,
// importlib.util.find_spec for where it lives (find_spec of a top-level
// name imports nothing), and file stats for preflight's cache stamp.
const probeScript = `
import json, os, sys
out = {"python": "%d.%d.%d" % tuple(sys.version_info[:3]), "executable": sys.executable}
module = sys.argv[1]
try:
    import importlib.metadata as md
    try:
        out["sglang_version"] = md.version("sglang")
    except md.PackageNotFoundError:
        pass
except Exception as e:
    out["error"] = "importlib.metadata: %s" % e
import importlib.util
def locations(name):
    try:
        spec = importlib.util.find_spec(name)
    except Exception as e:
        out["error"] = "find_spec(%s): %s" % (name, e)
        return None, []
    if spec is None:
        return None, []
    return spec, list(spec.submodule_search_locations or [])
spec, locs = locations("sglang")
if locs:
    d = locs[0]
    out["sglang_dir"] = d
    stamp = []
    for rel in ("__init__.py", "version.py", "launch_server.py", "srt/server_args.py", "srt/server_args.json", "srt/environ.py"):
        try:
            st = os.stat(os.path.join(d, rel))
            stamp.append("%s:%d:%d" % (rel, st.st_mtime_ns, st.st_size))
        except OSError:
            pass
    out["stamp"] = ";".join(stamp)
top, rest = module.split(".")[0], module.split(".")[1:]
spec, locs = locations(top)
found = None
if spec is not None and not rest:
    found = spec.origin or (locs[0] if locs else None)
for loc in locs:
    base = os.path.join(loc, *rest)
    for cand in (base + ".py", os.path.join(base, "__init__.py"), os.path.join(base, "__main__.py")):
        if os.path.isfile(cand):
            found = cand
            break
    if found:
        break
out["module_file"] = found
print(json.dumps(out))
`

// Python is what probeScript prints.
type Python struct {
	Python        string `json:"python"` // the interpreter's version
	Executable    string `json:"executable"`
	SGLangVersion string `json:"sglang_version"` // "" without package metadata
	SGLangDir     string `json:"sglang_dir"`     // "" when sglang is not importable
	Stamp         string `json:"stamp"`
	ModuleFile    string `json:"module_file"` // "" when Module is not found
	Error         string `json:"error"`
}

// PythonSpec is the interpreter to ask and how the server would start it.
type PythonSpec struct {
	Python string
	// Environ is the plan's environment, exactly: PYTHONPATH and a venv
	// decide which sglang is found.
	Environ []string
	// Dir is where the server starts; "" is the current directory.
	Dir string
	// Module is the server's module, whose file the probe looks for.
	Module  string
	Timeout time.Duration
}

// PythonProbe is the probe's answer.
type PythonProbe struct {
	Facts Python
	// Run is the interpreter's run.
	Run childproc.Result
	// Err is nil when Facts hold an answer; otherwise Run.Err (the
	// interpreter failed), or why its answer could not be read.
	Err error
}

// Python runs probeScript with s's interpreter, environment and
// directory. The environment also gets PYTHONDONTWRITEBYTECODE=1, so the
// probe leaves no bytecode in the user's site-packages.
func (m *Memo) Python(ctx context.Context, s PythonSpec) PythonProbe {
	env := append(append([]string(nil), s.Environ...), "PYTHONDONTWRITEBYTECODE=1")
	dir := s.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	key := strings.Join(append([]string{"python", s.Python, dir, s.Module}, env...), "\x00")
	return remember(ctx, m, key, func() PythonProbe {
		var p PythonProbe
		p.Run = childproc.Run(ctx, childproc.Spec{Argv: []string{s.Python, "-c", probeScript, s.Module}, Env: env, Dir: s.Dir, Timeout: s.Timeout})
		if p.Err = p.Run.Err; p.Err != nil {
			return p
		}
		if err := json.Unmarshal(lastLine(p.Run.Stdout), &p.Facts); err != nil {
			p.Err = fmt.Errorf("unreadable answer %q: %w", tail.Line(p.Run.Stdout, 2), err)
		}
		return p
	})
}

// lastLine is the last non-empty line of b: a sitecustomize may print
// before the probe does.
func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}
