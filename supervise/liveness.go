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
// at half of WATCHDOG_USEC while the probes pass, and handles the signals
// given to Launch. Cancelling ctx stops the server. It returns once no
// process of the tree is left, with Err's result: nil when the server
// exited with status 0 by itself, else an *launcher.Error carrying its
// exit status (see launcher.ExitCode).
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
	var healthy atomic.Bool
	healthy.Store(true)
	go s.watchdog(lctx, &healthy)
	h := s.plan.Health
	if h.Interval > 0 {
		l := &health.Liveness{
			URL:       s.plan.BaseURL() + "/health",
			Interval:  h.Interval,
			Timeout:   h.RequestTimeout,
			Threshold: h.FailureThreshold,
		}
		go l.Run(lctx, func(c health.Check) { s.onCheck(c, l.Threshold, &healthy) })
	}
	<-s.Done()
	s.reportExit()
	return s.Err()
}

// onCheck acts on one liveness probe.
func (s *Session) onCheck(c health.Check, threshold int, healthy *atomic.Bool) {
	if s.opts.Observer != nil {
		s.opts.Observer.Probe(ProbeLiveness, c)
	}
	if c.OK() {
		if !healthy.Swap(true) {
			s.log.Info("server healthy again")
			s.notify.Status(s.readyStatus())
		}
		return
	}
	healthy.Store(false)
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
	s.log.Error(what)
	s.RequestStop(&reason{ErrUnhealthy, what}, syscall.SIGTERM)
}

// watchdog pings systemd's watchdog at half its interval, only while the
// liveness probes pass and the server runs: a hung server stops the pings
// and systemd's watchdog takes over.
func (s *Session) watchdog(ctx context.Context, healthy *atomic.Bool) {
	interval := systemd.WatchdogInterval()
	if interval <= 0 || !s.notify.Enabled() {
		return
	}
	ping := func() {
		if healthy.Load() && s.Running() {
			s.notify.Watchdog()
		}
	}
	ping()
	t := time.NewTicker(interval / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ping()
		}
	}
}
