package preflight

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/catalog/sglangtab"
	"github.com/sglaunch/sglaunch/internal/childproc"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/tail"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/preflight/sglanghelp"
)

// pythonResult is what the interpreter told preflight.
type pythonResult struct {
	findings []Finding // the python check's
	info     SGLangInfo
	args     *catalog.Args
	origin   string // where the flag list came from, for messages
	// envs is the environment catalog of the installed version's table
	// set (the nearest older one, with a warning, when it has none); nil
	// before the version is known: the newest set's.
	envs *catalog.SGLangEnvs
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
	py := &pythonResult{args: catalog.SGLangArgs(), origin: catalogOrigin("")}
	py.info.Flags = "embedded catalog"
	s := subject{check: CheckPython, name: filepath.Base(plan.Python), where: "python (" + plan.Provenance["python"] + ")"}
	cache := newFlagCache(o, plan.Python)

	// The help runs beside the probe when nothing was ever cached for this
	// interpreter, since it is then almost surely needed.
	helpCtx, cancelHelp := context.WithCancel(ctx)
	var helpCh <-chan childproc.Result
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
	// The probe runs with the plan's environment as it is, not
	// pythonEnv's, so that bench, asking the same interpreter for the
	// SGLang version, gets the remembered answer.
	probe := o.Probes.Python(ctx, hostprobe.PythonSpec{Python: plan.Python, Environ: plan.Environ, Dir: o.dir(), Module: plan.Module, Timeout: o.ProbeTimeout})
	p := probe.Facts
	if probe.Err != nil {
		py.findings = append(py.findings, s.fail(fmt.Sprintf("%s does not run: %s", plan.Python, describeErr(probe.Err, probe.Run.Stderr)),
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
	tables, warns := sglangTables(sg, p.SGLangVersion)
	py.info.Tables = tables
	py.findings = append(py.findings, warns...)
	// The installed version's flags and environment names stand in for
	// --help and the package sources where those are not read.
	if a, _, err := catalog.ArgsFor(p.SGLangVersion); err == nil {
		py.args, py.origin = a, catalogOrigin(p.SGLangVersion)
	}
	if e, _, err := catalog.EnvsFor(p.SGLangVersion); err == nil {
		py.envs = e
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
	helpErr := help.Err
	if helpErr == nil && help.Truncated {
		helpErr = fmt.Errorf("printed more than %d MiB; output cut", childproc.DefaultMaxOutput>>20)
	}
	if helpErr != nil {
		py.findings = append(py.findings, hs.fail(fmt.Sprintf("failed: %s; the server would fail the same way at start-up", describeErr(helpErr, help.Stderr)),
			"fix the SGLang installation until `python -m "+helpModule+" --help` works"))
		py.info.Flags = "embedded catalog (--help failed)"
		return py
	}
	flags, err := sglanghelp.Parse(string(help.Stdout))
	if err != nil {
		py.findings = append(py.findings, hs.warn(fmt.Sprintf("its output is not argparse help (%v); flags are checked against the embedded catalog", err), ""))
		return py
	}
	e := &cacheEntry{
		Python: plan.Python, Version: p.SGLangVersion, Location: p.SGLangDir, Stamp: p.Stamp,
		Flags: sglanghelp.Merge(flags, py.args), EnvNames: scanEnvNames(p.SGLangDir),
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

// catalogOrigin names the embedded flag catalog of the table set picked
// for an installed version (the newest for "") in messages: its SGLang
// version and commit.
func catalogOrigin(version string) string {
	c, err := sglangtab.For(version)
	if err != nil {
		return "the embedded catalog"
	}
	return fmt.Sprintf("the embedded catalog (SGLang %s @ %.12s)", c.Meta.Version, c.Meta.Commit)
}

// helpModule is the module whose --help lists SGLang's server flags.
const helpModule = "sglang.launch_server"

func startHelp(ctx context.Context, plan *plan.Plan, o *Options) <-chan childproc.Result {
	ch := make(chan childproc.Result, 1)
	go func() {
		ch <- childproc.Run(ctx, childproc.Spec{Argv: []string{plan.Python, "-m", helpModule, "--help"}, Env: pythonEnv(plan), Dir: o.dir(), Timeout: o.HelpTimeout})
	}()
	return ch
}

// describeErr says how a child failed, with the tail of its stderr.
func describeErr(err error, stderr []byte) string {
	msg := err.Error()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg = fmt.Sprintf("exit status %d", ee.ExitCode())
		if ee.ExitCode() < 0 {
			msg = ee.String()
		}
	}
	if t := tail.Line(stderr, 3); t != "" {
		msg += ": " + t
	}
	return msg
}
