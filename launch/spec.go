package launch

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/preflight"
)

// Spec is one launch, resolved from the command line.
type Spec struct {
	// Plan is the plan to launch; nil for a launch that starts no
	// server (bench --url), whose URL is then the server's.
	Plan *plan.Plan
	Mode string
	URL  string
	// Placement is the rank in its multi-node group; nil: one node.
	Placement *cluster.Placement
	// RuntimeDir holds the runtime state, StateDir the load history,
	// the launch counts and what preflight remembers.
	RuntimeDir, StateDir string
	// LogFile, when set, also receives the server's output.
	LogFile        string
	Stdout, Stderr io.Writer
	Log            *slog.Logger
	Preflight      Preflight
	// Records are looked up for the benchmark the plan reproduces; nil:
	// not looked up (bench, or records that cannot be read).
	Records *bench.Store
	// StatusEndpoint serves the plan's status_addr, if it has one (serve,
	// bench --keep-running); StatusProxy also passes the server's own
	// metrics through.
	StatusEndpoint, StatusProxy bool
	// Probes remembers the interpreter and nvidia-smi probes of the
	// command; LookPath finds nvidia-smi.
	Probes   *hostprobe.Memo
	LookPath func(string) (string, error)
	// Getenv reads the command's environment (the group's secret).
	Getenv func(string) string
	// Workloads, when set, runs instead of supervision (bench): it gets
	// the launch's id, its signals and a starter of the server (nil
	// without a Plan); the server stops when it returns.
	Workloads func(ctx context.Context, w Workloads) error
}

// Preflight says what runs before a model load.
type Preflight struct {
	// Skip runs only the Python start-up check, which refuses a plan
	// whose environment a site hook would change (--skip-preflight).
	Skip bool
	// AllowSiteOverrides warns instead of refusing on a site hook.
	AllowSiteOverrides bool
	// Options are preflight's (state directory, probes, PATH lookup).
	Options preflight.Options
}

// Workloads is what a launch hands to the workloads it runs.
type Workloads struct {
	// LaunchID marks the workloads' processes as this launch's.
	LaunchID string
	// Signals receives SIGINT, SIGTERM, SIGHUP and SIGQUIT.
	Signals <-chan os.Signal
	// Start launches the plan's server as serve does and returns once it
	// is ready, under the launch's state and status endpoint; nil for a
	// launch without a plan.
	Start bench.LaunchFunc
}
