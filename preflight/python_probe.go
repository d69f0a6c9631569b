package preflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/plan"
)

// probeScript asks the interpreter about itself and the installed SGLang
// without importing sglang: importlib.metadata for the version,
// importlib.util.find_spec for where it lives (find_spec of a top-level
// name imports nothing), and file stats for the cache stamp.
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

// probe is what probeScript prints.
type probe struct {
	Python        string `json:"python"`
	Executable    string `json:"executable"`
	SGLangVersion string `json:"sglang_version"`
	SGLangDir     string `json:"sglang_dir"`
	Stamp         string `json:"stamp"`
	ModuleFile    string `json:"module_file"`
	Error         string `json:"error"`
}

// pythonResult is what the interpreter told preflight.
type pythonResult struct {
	findings []Finding // the python check's
	info     SGLangInfo
	args     *catalog.Args
	origin   string // where the flag list came from, for messages
	// envNames are the SGLANG_*/SGL_* names in the installed package's
	// sources; nil when the catalog stands in.
	envNames map[string]bool
	// sim is true when the installed SGLang is sglaunch's simulator.
	sim bool
}

// pythonEnv is the plan's environment plus what keeps argparse's output
// plain: no colour, one line per option.
func pythonEnv(plan *plan.Plan) []string {
	return append(append([]string(nil), plan.Environ...), "COLUMNS=4000", "NO_COLOR=1", "PYTHON_COLORS=0", "PYTHONDONTWRITEBYTECODE=1")
}

// inspectPython runs the probe and, unless cached, --help, and decides
// which flag list and which SGLANG_* names the plan is checked against.
func inspectPython(ctx context.Context, plan *plan.Plan, o *Options) *pythonResult {
	py := &pythonResult{args: catalog.SGLangArgs(), origin: catalogOrigin()}
	py.info.Flags = "embedded catalog"
	s := subject{check: CheckPython, name: filepath.Base(plan.Python), where: "python (" + plan.Provenance["python"] + ")"}
	cache := newFlagCache(o, plan.Python)

	// The help runs beside the probe when nothing was ever cached for this
	// interpreter, since it is then almost surely needed.
	helpCtx, cancelHelp := context.WithCancel(ctx)
	var helpCh <-chan procResult
	consumed := false
	defer func() {
		// A help started for nothing is killed and reaped before returning.
		cancelHelp()
		if helpCh != nil && !consumed {
			<-helpCh
		}
	}()
	if !o.Catalog && !cache.any() {
		helpCh = startHelp(helpCtx, plan, o)
	}
	res := runProc(ctx, []string{plan.Python, "-c", probeScript, plan.Module}, pythonEnv(plan), o.dir(), o.ProbeTimeout)
	var p probe
	if res.err == nil {
		if err := json.Unmarshal(lastLine(res.stdout), &p); err != nil {
			res.err = fmt.Errorf("unreadable answer %q: %w", tail(res.stdout, 2), err)
		}
	}
	if res.err != nil {
		py.findings = append(py.findings, s.fail(fmt.Sprintf("%s does not run: %s", plan.Python, describeErr(res)),
			"set python: to a working interpreter (the venv's bin/python3 that has SGLang)"))
		py.info.Flags = "embedded catalog (the interpreter did not run)"
		return py
	}
	py.findings = append(py.findings, s.pass(fmt.Sprintf("Python %s runs (%s)", p.Python, p.Executable)))
	py.sim = strings.HasSuffix(p.SGLangVersion, "+sim")
	py.info.Version, py.info.Location = p.SGLangVersion, p.SGLangDir

	// SGLang and the module itself.
	sg := subject{check: CheckPython, name: "sglang", where: s.where}
	switch {
	case p.SGLangDir == "":
		py.findings = append(py.findings, sg.fail(fmt.Sprintf("SGLang is not installed for %s: the server would stop at once with 'No module named sglang'", plan.Python),
			"install SGLang into this interpreter's environment, or set python: to the interpreter that has it"))
		py.info.Flags = "embedded catalog (SGLang not installed)"
		return py
	case p.SGLangVersion == "":
		py.info.Version = "unknown"
		py.findings = append(py.findings, sg.pass(fmt.Sprintf("sglang at %s (no package metadata, so no version)", p.SGLangDir)))
	default:
		py.findings = append(py.findings, sg.pass(fmt.Sprintf("sglang %s at %s", p.SGLangVersion, p.SGLangDir)))
	}
	if p.ModuleFile == "" {
		py.findings = append(py.findings, subject{CheckPython, plan.Module, "module (" + plan.Provenance["module"] + ")"}.fail(
			fmt.Sprintf("%s cannot find module %s", plan.Python, plan.Module), "set module: to a module this SGLang has, like sglang.launch_server"))
	}
	if o.Catalog {
		return py
	}

	// The flag list and the names the sources mention: cached per version.
	if e, ok := cache.load(p); ok {
		py.useEntry(e, "--help (cached)")
		return py
	}
	if helpCh == nil {
		helpCh = startHelp(helpCtx, plan, o)
	}
	help := <-helpCh
	consumed = true
	hs := subject{check: CheckPython, name: helpModule + " --help", where: s.where}
	if help.err != nil {
		py.findings = append(py.findings, hs.fail(fmt.Sprintf("failed: %s; the server would fail the same way at start-up", describeErr(help)),
			"fix the SGLang installation until `python -m "+helpModule+" --help` works"))
		py.info.Flags = "embedded catalog (--help failed)"
		return py
	}
	flags, err := parseHelp(string(help.stdout))
	if err != nil {
		py.findings = append(py.findings, hs.warn(fmt.Sprintf("its output is not argparse help (%v); flags are checked against the embedded catalog", err), ""))
		return py
	}
	e := &cacheEntry{
		Python: plan.Python, Version: p.SGLangVersion, Location: p.SGLangDir, Stamp: p.Stamp,
		Flags: mergeCatalog(flags, catalog.SGLangArgs()), EnvNames: scanEnvNames(p.SGLangDir),
	}
	cache.store(e)
	py.useEntry(e, "--help")
	return py
}

func (py *pythonResult) useEntry(e *cacheEntry, how string) {
	py.args = catalog.NewArgs("sglang "+e.Version+" --help", e.Flags)
	py.origin = "the installed sglang " + e.Version
	py.info.Flags = how
	py.envNames = map[string]bool{}
	for _, n := range e.EnvNames {
		py.envNames[n] = true
	}
}

var reCommit = regexp.MustCompile(`@ commit ([0-9a-f]{12})`)

// catalogOrigin names the embedded flag catalog in messages.
func catalogOrigin() string {
	if m := reCommit.FindStringSubmatch(catalog.SGLangArgs().Source); m != nil {
		return "the embedded catalog (SGLang @ " + m[1] + ")"
	}
	return "the embedded catalog"
}

// helpModule is the module whose --help lists SGLang's server flags.
const helpModule = "sglang.launch_server"

func startHelp(ctx context.Context, plan *plan.Plan, o *Options) <-chan procResult {
	ch := make(chan procResult, 1)
	go func() {
		ch <- runProc(ctx, []string{plan.Python, "-m", helpModule, "--help"}, pythonEnv(plan), o.dir(), o.HelpTimeout)
	}()
	return ch
}

// describeErr says how a child failed, with the tail of its stderr.
func describeErr(r procResult) string {
	msg := r.err.Error()
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		msg = fmt.Sprintf("exit status %d", ee.ExitCode())
		if ee.ExitCode() < 0 {
			msg = ee.String()
		}
	}
	if t := tail(r.stderr, 3); t != "" {
		msg += ": " + t
	}
	return msg
}

// lastLine is the last non-empty line of b: a sitecustomize may print
// before the probe does.
func lastLine(b []byte) []byte {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return []byte(lines[len(lines)-1])
}
