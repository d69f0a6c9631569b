package supervise

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/systemd"
)

// Session is one supervised run of a plan's server: the process, its
// readiness gate, READY=1, then liveness and the watchdog.
type Session struct {
	*launcher.Process
	plan    *plan.Plan
	opts    Options
	log     *slog.Logger
	notify  *systemd.Notifier
	tracker *health.Tracker
	ready   health.Load
	// portWarn says once that the port's holder could not be checked.
	portWarn sync.Once
	// reportExit tells the Observer how the session ended, once; every
	// path that returns the end to the caller calls it first, so that
	// the report is made before sglaunch can exit.
	reportExit func()
	// gs is the rank's part in its group's stop (see group.go).
	gs *groupStop
}

// Launch starts the plan's server exactly as planned and returns once its
// /health answers 200. While it waits, Launch sends systemd STATUS and
// EXTEND_TIMEOUT_USEC, and READY=1 once the gate has passed.
//
// On failure (the server exits during the load, start timeout, stall, a
// stop signal, ctx ending) Launch stops the whole tree and returns a
// *launcher.Error wrapping ErrExited, ErrStartTimeout, ErrStalled or
// ErrInterrupted, with the server's exit status and the last 40 lines of
// its output. Cancelling ctx at any time, also after Launch returned,
// stops the server as a stop signal would.
//
// Launch prints nothing about the plan; the caller prints plan.Text().
func Launch(ctx context.Context, p *plan.Plan, opts Options) (*Session, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
		opts.Logger = log
	}
	s := &Session{plan: p, opts: opts, log: log, notify: systemd.NewNotifier(log), reportExit: func() {}}
	lo := opts.Options
	lo.Signals = s.groupSignals(lo.Signals)
	lo.Observe = func(b []byte) {
		if s.tracker != nil {
			s.tracker.Observe(b)
		}
		if opts.Observe != nil {
			opts.Observe(b)
		}
	}
	lo.OnStopping = func(why string) {
		s.notify.Stopping(why)
		if opts.Observer != nil {
			opts.Observer.Stopping(why)
		}
		if opts.OnStopping != nil {
			opts.OnStopping(why)
		}
	}
	// The tracker exists before the first byte of output can arrive.
	s.tracker = health.NewTracker(timeNow())
	proc, err := launcher.Start(ctx, p, lo)
	if err != nil {
		if opts.Observer != nil {
			status, code := exitOf(err)
			opts.Observer.Exited(status, code, err)
		}
		return nil, err
	}
	s.Process = proc
	s.watchGroup()
	if opts.OnStarted != nil {
		opts.OnStarted(proc.PID())
	}
	if obs := opts.Observer; obs != nil {
		obs.Started(proc.PID(), proc.StartedAt())
		s.reportExit = sync.OnceFunc(func() {
			err := proc.Err()
			status, code := exitOf(err)
			obs.Exited(status, code, err)
		})
		go func() {
			<-proc.Done()
			s.reportExit()
		}()
	}
	if err := s.waitReady(); err != nil {
		return nil, err
	}
	return s, nil
}

// waitReady runs the readiness gate. Every wait in it races the server's
// exit and the stop requests: either ends the gate at once.
func (s *Session) waitReady() error {
	gctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		select {
		case <-s.Exited():
			cancel(ErrExited)
		case <-s.Stopping():
			cancel(ErrInterrupted)
		case <-gctx.Done():
		}
	}()
	if s.opts.Group != nil {
		s.log.Info(fmt.Sprintf("rank %d: waiting for its server's /health", s.opts.Group.Rank()))
	}
	history := health.History{Dir: s.opts.StateDir}
	est, err := history.Estimate(s.plan.Fingerprint)
	if err != nil {
		s.log.Warn("ignoring the load history: " + err.Error())
	}
	h := s.plan.Health
	gate := &health.Gate{
		URL:            s.plan.BaseURL() + "/health",
		PollInterval:   h.PollInterval,
		RequestTimeout: h.RequestTimeout,
		StartTimeout:   h.StartTimeout,
		StallTimeout:   h.StallTimeout,
		ProgressEvery:  s.opts.ProgressEvery,
		Tracker:        s.tracker,
		Notifier:       s.notify,
		Logger:         s.log,
		Estimate:       est,
		Confirm:        s.confirmReady,
	}
	if obs := s.opts.Observer; obs != nil {
		gate.OnProbe = func(c health.Check) { obs.Probe(ProbeReadiness, c) }
		obs.Loading(s.tracker, est)
	}
	at, err := gate.Wait(gctx)
	if err == nil {
		err = s.waitGroupReady()
	}
	if err == nil {
		// Ready and gone at the same moment counts as gone.
		select {
		case <-s.Exited():
			err = ErrExited
		case <-s.Stopping():
			err = ErrInterrupted
		default:
		}
	}
	if err != nil {
		if errors.Is(err, ErrStartTimeout) || errors.Is(err, ErrStalled) || errors.Is(err, ErrPortTaken) {
			s.RequestStop(err, syscall.SIGTERM)
		}
		<-s.Done()
		s.reportExit()
		s.tellGroup(s.Err())
		return s.groupOutcome(s.withPortHolder(s.Err()))
	}

	s.tracker.Finish()
	s.ready = health.Load{StartedAt: s.StartedAt(), ReadyAt: at, Phases: s.tracker.Phases()}
	s.ready.Seconds = s.ready.Duration().Seconds()
	s.ready.Official = s.officialStartup()
	s.SetReady()
	// The runtime state says "ready" before anyone is told so: whoever
	// READY=1 or the healthy line wakes can verify the server at once.
	if s.opts.OnReady != nil {
		s.opts.OnReady(s.ready)
	}
	if s.opts.Observer != nil {
		s.opts.Observer.Ready(s.ready)
	}
	s.notify.Ready(s.readyStatus())
	s.log.Info(fmt.Sprintf("healthy after %s%s", health.Secs(s.ready.Duration()), milestones(s.ready.Phases)),
		"url", s.plan.BaseURL())
	if err := history.Record(s.plan.Fingerprint, s.ready); err != nil {
		s.log.Warn("cannot remember the load time: " + err.Error())
	}
	return nil
}

// withPortHolder adds, to a server that ended during the load, who holds
// its port when another process does: a server that cannot bind its port
// exits ("address already in use"), and the holder is the reason.
func (s *Session) withPortHolder(err error) error {
	if !errors.Is(err, ErrExited) {
		return err
	}
	var pe *proc.PortError
	if errors.As(proc.CheckPortOwner(s.plan.Port(), s.PID()), &pe) {
		return &portHeld{holder: pe, err: err}
	}
	return err
}

// portHeld is a load that failed while another process held the port.
type portHeld struct {
	holder *proc.PortError
	err    error
}

func (e *portHeld) Error() string {
	return e.holder.Error() + "; the server could not have it: " + e.err.Error()
}
func (e *portHeld) Unwrap() error { return e.err }

// confirmPort makes sure the 200 came from this server: the socket
// listening on the plan's port must belong to the server's own tree. A
// second launch of a running profile, or two benchmarks sharing a port,
// would otherwise take the other server's answer for their own, tell
// systemd READY=1 and measure the wrong server.
func (s *Session) confirmPort() error {
	port := s.plan.Port()
	err := proc.CheckPortOwner(port, s.PID())
	var pe *proc.PortError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return &reason{sentinel: ErrPortTaken, msg: fmt.Sprintf("%s: what answered /health is not this server; stop that process or give this profile another port (args.port)", pe)}
	case errors.Is(err, proc.ErrNotListening):
		// The answer came, yet no socket is seen: the listener closed in
		// between (a server stopping), or it is out of sight.
		return fmt.Errorf("no socket listens on port %d: %w", port, health.ErrNotYet)
	}
	s.portWarn.Do(func() { s.log.Warn("cannot check who holds the port: " + err.Error()) })
	return nil
}

func (s *Session) readyStatus() string {
	return fmt.Sprintf("ready: %s at %s (loaded in %s)", s.plan.Profile, s.plan.BaseURL(), health.Secs(s.ready.Duration()))
}

// milestones lists the phases that end a step, for the healthy line:
// " (weights loaded 312.0s, CUDA graphs captured 540.2s, ...)".
func milestones(phases []health.Phase) string {
	var parts []string
	for _, p := range phases {
		switch p.Name {
		case health.PhaseWeightsLoaded, health.PhaseGraphsCaptured, health.PhasePortBound, health.PhaseWarmupDone:
			parts = append(parts, p.Name+" "+health.Secs(p.At))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// Ready describes the load; valid once Launch has returned the session.
func (s *Session) Ready() health.Load { return s.ready }

// ServerPID is the server's main process id.
func (s *Session) ServerPID() int { return s.PID() }

// Stop stops the server as a requested stop does: SIGTERM, the plan's
// stop_timeout, then SIGKILL to everything left. See launcher.Process.Stop.
func (s *Session) Stop(ctx context.Context) (launcher.ExitStatus, error) {
	status, err := s.Process.Stop(ctx, syscall.SIGTERM, s.plan.StopTimeout)
	select {
	case <-s.Done():
		s.reportExit()
	default:
	}
	return status, err
}
