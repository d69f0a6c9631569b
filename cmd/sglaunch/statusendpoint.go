package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/status"
	"github.com/sglaunch/sglaunch/supervise"
)

// Flags of the status endpoint, for serve and bench --keep-running.
var (
	statusAddrFlag  = &cli.StringFlag{Name: "status-addr", Usage: "serve /livez, /readyz, /status and /metrics on `HOST:PORT` (PORT or :PORT: loopback; default $SGLAUNCH_STATUS_ADDR, else the profile's status_addr, else off)"}
	statusProxyFlag = &cli.BoolFlag{Name: "status-proxy-metrics", Usage: "also pass the server's own sglang:* metrics through /metrics, labelled with the profile and fingerprint (needs the server's --enable-metrics)"}
)

// statusCloseTimeout bounds the requests in flight when sglaunch ends.
const statusCloseTimeout = 2 * time.Second

// statusHook is a launch's running status endpoint; the zero value is
// an endpoint that is off.
type statusHook struct {
	state *status.State
	srv   *status.Server
}

// wire makes the session report to the endpoint and the runtime state
// name it.
func (h *statusHook) wire(opts *supervise.Options, rs *launchState) {
	if h.srv == nil {
		return
	}
	opts.Observer = h.state
	rs.state.StatusURL = h.srv.URL()
}

// close stops serving once sglaunch is done with the server.
func (h *statusHook) close() {
	if h.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusCloseTimeout)
	defer cancel()
	_ = h.srv.Close(ctx)
}

// statusEndpoint starts the launch's status endpoint when the plan asks
// for one (status_addr); wire it to the session before the launch.
func (e *env) statusEndpoint(c *cli.Context, p *plan.Plan, s plan.Config, log *slog.Logger, benchmarked *bench.Benchmarked, g *runstate.Group) (*statusHook, error) {
	proxy := c.Bool(statusProxyFlag.Name)
	if p.StatusAddr == "" {
		if proxy {
			return nil, inputerr.Errorf("--status-proxy-metrics needs the status endpoint: give --status-addr HOST:PORT (or status_addr in the profile)")
		}
		return &statusHook{}, nil
	}
	proxyURL := ""
	if proxy {
		if !p.HasFlag("--enable-metrics") {
			return nil, inputerr.Errorf("--status-proxy-metrics: the server runs without --enable-metrics, so it has no metrics to pass through; add `enable-metrics: true` to the profile's args (or --set args.enable-metrics=true)")
		}
		proxyURL = p.BaseURL()
	}
	stateDir := statedir.State(s.StateDir, e.getenv)
	info := status.Info{
		Profile: p.Profile, Mode: p.Mode, Fingerprint: p.Fingerprint, Interpreter: p.Python, URL: p.BaseURL(),
		SglaunchPID: os.Getpid(), LivenessInterval: p.Health.Interval, Benchmarked: benchmarkSummary(benchmarked), Group: g,
	}
	// Preflight asked the same probe: this is its remembered answer.
	if v, err := bench.SGLangVersion(c.Context, e.probes, p); err == nil {
		info.SGLangVersion = v
	}
	if last, ok := (health.History{Dir: stateDir}).Last(p.Fingerprint); ok {
		info.LastLoad = &last
	}
	var err error
	if p.Mode == plan.ModeServe {
		// Every serve is one launch; a bench only reads the count.
		info.Launches, err = status.CountLaunch(stateDir, p.Profile)
		info.LaunchesDir = stateDir
	} else {
		info.Launches, err = status.ReadLaunches(stateDir, p.Profile)
	}
	if err != nil {
		log.Warn("restarts: " + err.Error())
	}
	st := status.NewState(info)
	srv, err := status.Listen(st, status.Options{Addr: p.StatusAddr, ProxyURL: proxyURL})
	if err != nil {
		return nil, inputerr.Errorf("status_addr %s (from %s): %w", p.StatusAddr, p.Provenance["status_addr"], err)
	}
	log.Info("status endpoint on " + srv.URL() + " (/livez /readyz /status /metrics)")
	return &statusHook{state: st, srv: srv}, nil
}

// benchmarkSummary is what /status says of the records (nil: unknown).
func benchmarkSummary(b *bench.Benchmarked) *status.Benchmark {
	switch {
	case b == nil:
		return nil
	case b.Empty:
		return &status.Benchmark{None: "no bench records yet"}
	case b.Exact != nil:
		out := &status.Benchmark{Record: b.Exact.ID, Date: b.Exact.Started.Format("2006-01-02"), Exact: true, Headline: bench.Headline(b.Exact)}
		out.OutputThroughput, _ = bench.OutputThroughput(b.Exact)
		return out
	case b.Nearest == nil:
		return &status.Benchmark{None: "no bench record has this fingerprint, and none has a known plan"}
	}
	out := &status.Benchmark{Record: b.Nearest.ID, Date: b.Nearest.Started.Format("2006-01-02")}
	for _, r := range b.Differences {
		out.DiffersIn = append(out.DiffersIn, r.Setting)
	}
	return out
}
