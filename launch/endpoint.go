package launch

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/status"
)

type statusBenchmark = status.Benchmark

// statusCloseTimeout bounds the requests in flight when sglaunch ends.
const statusCloseTimeout = 2 * time.Second

// endpoint is a launch's running status endpoint.
type endpoint struct {
	state *status.State
	srv   *status.Server
}

// listen starts the status endpoint when the plan asks for one
// (status_addr) and names it in the runtime state at once, so that
// `sglaunch status` finds it from the moment it listens (a rank's
// rendezvous may last minutes before the server starts).
func (l *launch) listen(ctx context.Context, benchmarked *bench.Benchmarked) error {
	s, p, log := l.spec, l.spec.Plan, l.spec.Log
	if p.StatusAddr == "" {
		if s.StatusProxy {
			return inputerr.Errorf("--status-proxy-metrics needs the status endpoint: give --status-addr HOST:PORT (or status_addr in the profile)")
		}
		return nil
	}
	proxyURL := ""
	if s.StatusProxy {
		if !p.HasFlag("--enable-metrics") {
			return inputerr.Errorf("--status-proxy-metrics: the server runs without --enable-metrics, so it has no metrics to pass through; add `enable-metrics: true` to the profile's args (or --set args.enable-metrics=true)")
		}
		proxyURL = p.BaseURL()
	}
	known := status.Known{Benchmarked: benchmarkSummary(benchmarked)}
	if s.Placement != nil {
		known.Group = rankState(p, s.Placement, s.RuntimeDir)
	}
	// Preflight asked the same probe: this is its remembered answer.
	if v, err := bench.SGLangVersion(ctx, s.Probes, p); err == nil {
		known.SGLangVersion = v
	}
	info, err := status.NewInfo(p, s.StateDir, known)
	if err != nil {
		log.Warn("restarts: " + err.Error())
	}
	st := status.NewState(info)
	srv, err := status.Listen(st, status.Options{Addr: p.StatusAddr, ProxyURL: proxyURL, Log: log})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			// Taken: by another process now, perhaps this unit's last
			// run still ending. Exit 1, so that a restart tries again
			// (exit 2 is bad input, which a unit never restarts).
			return fmt.Errorf("status_addr %s (from %s) is taken: %w; a restart tries it again", p.StatusAddr, p.Provenance["status_addr"], err)
		}
		return inputerr.Errorf("status_addr %s (from %s): %w", p.StatusAddr, p.Provenance["status_addr"], err)
	}
	l.endpoint = &endpoint{state: st, srv: srv}
	l.state.Update(func(rs *runstate.State) { rs.StatusURL = srv.URL() })
	log.Info("status endpoint on " + srv.URL() + " (/livez /readyz /status /metrics)")
	return nil
}

// close stops serving once sglaunch is done with the server; a nil
// endpoint is one that is off.
func (e *endpoint) close() {
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusCloseTimeout)
	defer cancel()
	_ = e.srv.Close(ctx)
}
