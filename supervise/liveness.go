package supervise

import (
	"context"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/systemd"
)

// timeNow is the clock; tests may replace it.
var timeNow = time.Now

// Supervise watches the ready server until it ends or is stopped: it
// probes /health every health.interval, acts on health.on_unhealthy after
// health.failure_threshold failures in a row, pings the systemd watchdog
// (see watchdog) and handles the signals given to Launch. Cancelling ctx
// stops the server. It returns once no process of the tree is left, with
// Err's result: nil when the server exited with status 0 by itself,
// else an *launcher.Error carrying its exit status (see
// launcher.ExitCode).
func (s *Session) Supervise(ctx context.Context) error {
	release := context.AfterFunc(ctx, func() {
		s.RequestStop(&reason{ErrInterrupted, "stopped: " + context.Cause(ctx).Error()}, syscall.SIGTERM)
	})
	defer release()
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.Stopping():
		case <-s.Done():
		}
		cancel()
	}()
	wd := s.newWatchdog()
	if wd != nil {
		go wd.run(lctx)
	}
	h := s.plan.Health
	// A worker's /health is SGLang's dummy server: 200 whatever the
	// group does. Its liveness is its process tree and rank 0's
	// heartbeats (watchGroup).
	if h.Interval > 0 && !s.isWorker() {
		l := &health.Liveness{
			URL:       s.plan.BaseURL() + "/health",
			Interval:  h.Interval,
			Timeout:   h.RequestTimeout,
			Threshold: h.FailureThreshold,
		}
		healthy := true
		go l.Run(lctx, func(c health.Check) { s.onCheck(c, l.Threshold, &healthy, wd) })
	}
	<-s.Done()
	s.reportExit()
	err := s.workerEnd(s.Err())
	s.tellGroup(err)
	return s.groupOutcome(err)
}

// onCheck acts on one liveness probe; the probes are reported one at a
// time, so healthy needs no lock.
func (s *Session) onCheck(c health.Check, threshold int, healthy *bool, wd *watchdog) {
	if s.opts.Observer != nil {
		s.opts.Observer.Probe(ProbeLiveness, c)
	}
	wd.setHealthy(c.OK())
	if c.OK() {
		// Every passing probe pings, the one after a failure above all:
		// waiting for the next tick could land the ping past systemd's
		// deadline (B11).
		wd.ping()
		if !*healthy {
			*healthy = true
			s.log.Info("server healthy again")
			s.notify.Status(s.readyStatus())
		}
		return
	}
	*healthy = false
	s.log.Warn(fmt.Sprintf("liveness probe failed (%d/%d): %s", c.Failures, threshold, c.Reason()))
	if c.Failures != threshold {
		return
	}
	what := fmt.Sprintf("server unhealthy: %d liveness probes failed in a row (last: %s)", c.Failures, c.Reason())
	if s.plan.Health.OnUnhealthy == plan.OnUnhealthyLog {
		s.log.Error(what + "; leaving it running (health.on_unhealthy: log)")
		s.notify.Status("unhealthy: " + c.Reason())
		return
	}
	// A server that fails its liveness probes is hung (a stuck NCCL
	// collective, a dead GPU): it finishes no request, so there is no
	// drain to wait for. The tree ends at once and the restart follows,
	// instead of after stop_timeout.
	s.log.Error(what + "; killing it (a hung server drains nothing)")
	s.RequestStopWithin(&reason{ErrUnhealthy, what}, syscall.SIGKILL, 0)
}

// watchdog pings systemd's watchdog (WatchdogSec=) at half its interval
// and after every passing liveness probe, while the server runs. With
// health.on_unhealthy: exit the pings pause while the probes fail, so a
// server hung beyond sglaunch's own reach is still stopped by systemd;
// the unit's WatchdogSec is longer than failure_threshold failed probes,
// so sglaunch's own stop comes first. With on_unhealthy: log they never
// pause: "log only" must not be turned into a kill by the watchdog (B9).
type watchdog struct {
	s        *Session
	interval time.Duration
	pauses   bool // the pings pause while the probes fail
	healthy  atomic.Bool
}

// newWatchdog returns nil when systemd asked for no watchdog.
func (s *Session) newWatchdog() *watchdog {
	interval := systemd.WatchdogInterval()
	if interval <= 0 || !s.notify.Enabled() {
		return nil
	}
	w := &watchdog{s: s, interval: interval, pauses: s.plan.Health.OnUnhealthy != plan.OnUnhealthyLog}
	w.healthy.Store(true)
	return w
}

func (w *watchdog) setHealthy(ok bool) {
	if w != nil {
		w.healthy.Store(ok)
	}
}

func (w *watchdog) ping() {
	if w != nil && (w.healthy.Load() || !w.pauses) && w.s.Running() {
		w.s.notify.Watchdog()
	}
}

func (w *watchdog) run(ctx context.Context) {
	w.ping()
	t := time.NewTicker(w.interval / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.ping()
		}
	}
}
