package preflight

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/plan"
)

// Generous bounds for the children preflight starts: a real SGLang's
// --help imports torch, which takes many seconds on a cold file cache.
const (
	DefaultProbeTimeout = 30 * time.Second
	DefaultHelpTimeout  = 3 * time.Minute
	DefaultGPUTimeout   = 30 * time.Second
)

// timeNow is the clock; tests replace it.
var timeNow = time.Now

// Options tune a preflight run.
type Options struct {
	// StateDir is sglaunch's state directory; the SGLang flag list is
	// cached under StateDir/preflight, once per SGLang version. Empty
	// turns the cache off.
	StateDir string
	// Catalog checks flags and SGLANG_* names against the embedded
	// catalogs instead of the installed SGLang.
	Catalog bool
	// Dir is the directory the server starts in, for relative paths
	// (default: the current directory).
	Dir string
	// Timeouts for the interpreter probe, --help and nvidia-smi.
	ProbeTimeout, HelpTimeout, GPUTimeout time.Duration
	// LookPath finds nvidia-smi (exec.LookPath when nil).
	LookPath func(string) (string, error)
	// Logger gets debug lines about the cache; nil discards them.
	Logger *slog.Logger
	// AllowSiteOverrides turns a site hook that changes a managed
	// variable from FAIL into WARN.
	AllowSiteOverrides bool
	// Probes remembers the interpreter probe and the GPU query for the
	// rest of the command, which asks them again (bench records the
	// SGLang version and the GPUs); nil asks afresh.
	Probes *hostprobe.Memo
}

func (o *Options) dir() string {
	if o.Dir != "" {
		return o.Dir
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}

func (o Options) withDefaults() *Options {
	if o.ProbeTimeout == 0 {
		o.ProbeTimeout = DefaultProbeTimeout
	}
	if o.HelpTimeout == 0 {
		o.HelpTimeout = DefaultHelpTimeout
	}
	if o.GPUTimeout == 0 {
		o.GPUTimeout = DefaultGPUTimeout
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Dir = o.dir()
	return &o
}

// Run checks a plan and returns the report. It starts the plan's
// interpreter (to ask the installed SGLang) and nvidia-smi, concurrently
// with the checks that need neither; it never starts the server.
func Run(ctx context.Context, plan *plan.Plan, opts Options) *Report {
	start := timeNow()
	o := opts.withDefaults()
	items := planEnv(plan)

	var wg sync.WaitGroup
	var py *pythonResult
	var gpus hostprobe.GPUQuery
	var site Finding
	wg.Add(3)
	go func() { defer wg.Done(); py = inspectPython(ctx, plan, o) }()
	go func() { defer wg.Done(); gpus = o.Probes.GPUs(ctx, o.LookPath, o.GPUTimeout) }()
	go func() { defer wg.Done(); site = SiteHooks(ctx, plan, o.AllowSiteOverrides, o.Dir) }()
	nccl := checkNCCL(items, o)
	torch := checkTorchEnv(items, o)
	port := checkPort(ctx, plan)
	wg.Wait()

	uses := py.args.Split(plan.Argv[3:])
	var all []Finding
	for _, part := range [][]Finding{
		py.findings,
		checkFlags(plan, py.args, uses, py.origin),
		checkRepeats(plan),
		checkSGLangEnv(items, py),
		checkHealthBypass(items),
		nccl,
		torch,
		checkDropped(plan),
		checkModels(plan, uses, items, o),
		port,
		checkMultiNode(ctx, plan),
		checkHealthTiming(plan, envMap(items), py.sim),
		checkGPUs(uses, items, gpus, py),
		{site},
	} {
		all = append(all, part...)
	}
	return &Report{
		Profile:  plan.Profile,
		Mode:     plan.Mode,
		Python:   plan.Python,
		SGLang:   py.info,
		Findings: all,
		Duration: timeNow().Sub(start),
	}
}
