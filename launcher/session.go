package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/plan"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Session is one run of a plan's server, from Launch until no process of
// its tree is left. Its methods are safe for concurrent use.
type Session struct {
	plan        *plan.Plan
	opts        RunOptions
	log         *slog.Logger
	notify      *health.Notifier
	stopTimeout time.Duration

	proc      *process
	tree      *tree
	out       *output
	tracker   *health.Tracker
	startedAt time.Time
	ready     ReadyInfo
	isReady   atomic.Bool
	release   func() bool // unregisters the Launch context's stop hook

	mu         sync.Mutex
	stopReason error          // why the first stop was requested
	stopSignal syscall.Signal // the signal the first stop request sent
	escalated  bool           // sglaunch SIGKILLed a server that did not stop
	stopping   chan struct{}  // closed on the first stop request
	killNow    chan struct{}  // closed to cut the grace period short
	killOnce   sync.Once
	finished   chan struct{} // closed when the whole tree is gone
	end        exit
	endedAt    time.Time
}

// Launch starts the plan's server exactly as planned and returns once its
// /health answers 200. The server runs in its own process group (its own
// session under a terminal) with a parent-death SIGKILL; sglaunch becomes
// the child subreaper so that processes leaving that group can still be
// found. While it waits, Launch sends systemd STATUS and
// EXTEND_TIMEOUT_USEC, and READY=1 once the gate has passed.
//
// On failure (the server exits during the load, start timeout, stall, a
// stop signal, ctx ending) Launch stops the whole tree and returns an
// *Error wrapping ErrExited, ErrStartTimeout, ErrStalled or
// ErrInterrupted, with the server's exit status and the last 40 lines of
// its output. Cancelling ctx at any time, also after Launch returned,
// stops the server as a stop signal would.
//
// Launch prints nothing about the plan; the caller prints plan.Text().
func Launch(ctx context.Context, plan *plan.Plan, opts RunOptions) (*Session, error) {
	s := newSession(plan, opts)
	if err := s.start(); err != nil {
		return nil, err
	}

	// The server runs. Run-state records hook in here (OnStarted).
	pid := s.proc.pid
	s.log.Info(fmt.Sprintf("server started (pid %d)", pid), "fingerprint", plan.ShortFingerprint())
	if opts.OnStarted != nil {
		opts.OnStarted(pid)
	}
	s.release = context.AfterFunc(ctx, func() {
		s.requestStop(newReason(ErrInterrupted, "stopped: "+context.Cause(ctx).Error()), syscall.SIGTERM)
	})
	go s.watch()
	go s.reapLoop()
	if opts.Signals != nil {
		go s.signalLoop(opts.Signals)
	}

	if err := s.waitReady(); err != nil {
		return nil, err
	}
	// The server is ready. Run-state records hook in here (OnReady).
	if opts.OnReady != nil {
		opts.OnReady(s.ready)
	}
	return s, nil
}

func newSession(plan *plan.Plan, opts RunOptions) *Session {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.TTY == nil {
		opts.TTY = os.Stdin
	}
	log := opts.Logger
	if log == nil {
		log, _ = NewLogger(os.Stderr, LogText)
	}
	return &Session{
		plan:        plan,
		opts:        opts,
		log:         log,
		notify:      health.NewNotifier(log),
		stopTimeout: plan.StopTimeout,
		stopping:    make(chan struct{}),
		killNow:     make(chan struct{}),
		finished:    make(chan struct{}),
	}
}

// start forks the server with its output going through pipes (or a
// pseudo-terminal) to the relays.
func (s *Session) start() error {
	if err := becomeSubreaper(); err != nil {
		s.log.Warn("cannot become the child subreaper (" + err.Error() + "); a process that leaves the server's session may survive it")
	}
	spared := childrenOfSelf()
	var file *lockedFile
	if s.opts.LogFile != "" {
		f, err := os.OpenFile(s.opts.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return inputerr.Errorf("log file: %w", err)
		}
		file = &lockedFile{f: f}
	}
	s.startedAt = time.Now()
	s.tracker = health.NewTracker(s.startedAt)
	s.out = &output{observe: s.tracker.Observe, tail: &tail{}, file: file, secrets: secretBytes(s.plan.SecretValues())}
	cmd := command(s.plan)
	var err error
	if s.opts.Terminal {
		s.proc, err = startPTY(cmd, s.opts.TTY)
		if err == nil {
			s.out.relayRaw(s.proc.pty, s.opts.Stdout)
		}
	} else {
		s.proc, err = s.startPiped(cmd)
	}
	if err != nil {
		if file != nil {
			file.f.Close()
		}
		return fmt.Errorf("%w: %s: %w", ErrStart, s.plan.Argv[0], err)
	}
	live.Lock()
	live.servers[s.proc.pid] = true
	live.Unlock()
	s.tree = newTree(s.proc.pid, spared)
	return nil
}

func (s *Session) startPiped(cmd *exec.Cmd) (*process, error) {
	outR, outW, err := pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	p, err := startPiped(cmd, outW, errW)
	// The write ends now belong to the server; sglaunch's copies would
	// keep the relays from ever seeing the end of the output.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	s.out.relayLines(outR, s.opts.Stdout)
	s.out.relayLines(errR, s.opts.Stderr)
	return p, nil
}

// waitReady runs the readiness gate. Every wait in it races the server's
// exit and the stop requests: either ends the gate at once.
func (s *Session) waitReady() error {
	gctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		select {
		case <-s.proc.exited:
			cancel(ErrExited)
		case <-s.stopping:
			cancel(ErrInterrupted)
		case <-gctx.Done():
		}
	}()
	history := health.History{Dir: s.opts.StateDir}
	est, err := history.Estimate(s.plan.Fingerprint)
	if err != nil {
		s.log.Warn("ignoring the load history: " + err.Error())
	}
	gate := &health.Gate{
		URL:            s.plan.BaseURL() + "/health",
		PollInterval:   s.plan.Health.PollInterval,
		RequestTimeout: s.plan.Health.RequestTimeout,
		StartTimeout:   s.plan.Health.StartTimeout,
		StallTimeout:   s.plan.Health.StallTimeout,
		ProgressEvery:  s.opts.ProgressEvery,
		Tracker:        s.tracker,
		Notifier:       s.notify,
		Logger:         s.log,
		Estimate:       est,
	}
	at, err := gate.Wait(gctx)
	if err == nil {
		// Ready and gone at the same moment counts as gone.
		select {
		case <-s.proc.exited:
			err = ErrExited
		case <-s.stopping:
			err = ErrInterrupted
		default:
		}
	}
	if err != nil {
		if errors.Is(err, ErrStartTimeout) || errors.Is(err, ErrStalled) {
			s.requestStop(err, syscall.SIGTERM)
		}
		<-s.finished
		return s.result()
	}

	s.tracker.Finish()
	s.ready = ReadyInfo{
		StartedAt: s.startedAt,
		ReadyAt:   at,
		LoadTime:  at.Sub(s.startedAt),
		Phases:    s.tracker.Phases(),
		ServerPID: s.proc.pid,
	}
	s.isReady.Store(true)
	s.notify.Ready(s.readyStatus())
	s.log.Info(fmt.Sprintf("healthy after %s%s", health.Secs(s.ready.LoadTime), milestones(s.ready.Phases)),
		"url", s.plan.BaseURL())
	if err := history.Record(s.plan.Fingerprint, at, s.ready.LoadTime, s.ready.Phases); err != nil {
		s.log.Warn("cannot remember the load time: " + err.Error())
	}
	return nil
}

func (s *Session) readyStatus() string {
	return fmt.Sprintf("ready: %s at %s (loaded in %s)", s.plan.Profile, s.plan.BaseURL(), health.Secs(s.ready.LoadTime))
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

// watch ends the session: it waits for the server to exit by itself or
// for a stop request, gives a stopped server stop_timeout to exit, then
// kills everything left of the tree and waits for the output to drain.
func (s *Session) watch() {
	select {
	case <-s.proc.exited:
	case <-s.stopping:
		grace := time.NewTimer(s.stopTimeout)
		defer grace.Stop()
		select {
		case <-s.proc.exited:
		case <-s.killNow:
			s.setEscalated()
		case <-grace.C:
			s.setEscalated()
			s.log.Warn(fmt.Sprintf("server still running %s after the stop signal (stop_timeout); killing it", health.Secs(s.stopTimeout)))
		}
	}
	s.notify.Stopping("stopping")
	s.killTree()
	s.out.drain(drainTimeout)
	s.mu.Lock()
	s.end = exitOf(s.proc.state)
	s.endedAt = s.proc.exitedAt
	s.mu.Unlock()
	live.Lock()
	delete(live.servers, s.proc.pid)
	live.Unlock()
	if s.release != nil {
		s.release()
	}
	close(s.finished)
}

// killTree SIGKILLs the server's process group and every process of its
// tree found through /proc, including those that changed session, until
// none is left and the server's own exit has been collected.
func (s *Session) killTree() {
	delay := time.Millisecond
	warned := false
	for {
		_ = s.proc.signalGroup(syscall.SIGKILL)
		alive, err := s.tree.sweep()
		if err != nil && !warned {
			s.log.Warn("cannot walk the process tree: " + err.Error())
			warned = true
		}
		if alive == 0 && s.proc.done() {
			return
		}
		time.Sleep(delay)
		delay = min(2*delay, 50*time.Millisecond)
	}
}

// treeWatchEvery spaces the walks of /proc that note the server's tree
// and reap adopted orphans (a few milliseconds each).
const treeWatchEvery = time.Second

// reapLoop keeps the tree's membership current while the server runs,
// and collects adopted orphans that exit, so that they do not linger as
// zombies of sglaunch.
func (s *Session) reapLoop() {
	t := time.NewTicker(treeWatchEvery)
	defer t.Stop()
	for {
		select {
		case <-s.finished:
			return
		case <-t.C:
			s.tree.watch()
		}
	}
}

// requestStop starts stopping the server: sig goes to its process group
// and the grace period starts. Later requests only forward their signal.
func (s *Session) requestStop(why error, sig syscall.Signal) {
	s.mu.Lock()
	first := s.stopReason == nil && !s.proc.done()
	if first {
		s.stopReason, s.stopSignal = why, sig
		close(s.stopping)
	}
	s.mu.Unlock()
	if first {
		s.notify.Stopping("stopping: " + why.Error())
		s.log.Info(fmt.Sprintf("%s: stopping the server (%s to its process group, SIGKILL after %s)", why, signalName(sig), health.Secs(s.stopTimeout)))
	}
	if sig != 0 {
		if err := s.proc.signalGroup(sig); err != nil {
			s.log.Warn(fmt.Sprintf("cannot send %s to the server: %v", signalName(sig), err))
		}
	}
}

func (s *Session) setEscalated() {
	s.mu.Lock()
	s.escalated = true
	s.mu.Unlock()
}

// kill cuts the grace period short: everything is killed at once.
func (s *Session) kill() {
	s.killOnce.Do(func() { close(s.killNow) })
}

// Stop stops the server: SIGTERM to its process group, stop_timeout to
// exit, then SIGKILL to the group and to every remaining process of its
// tree. It returns once no process of the tree is left, with the server's
// exit status. When ctx ends first, the rest of the grace period is
// skipped. Stopping a session that has already ended returns its status.
func (s *Session) Stop(ctx context.Context) (ExitStatus, error) {
	s.requestStop(newReason(ErrInterrupted, "stopped"), syscall.SIGTERM)
	select {
	case <-s.finished:
	case <-ctx.Done():
		s.kill()
		<-s.finished
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.end.status, nil
}

// Ready describes the load; valid once Launch has returned the session.
func (s *Session) Ready() ReadyInfo { return s.ready }

// ServerPID is the server's main process id.
func (s *Session) ServerPID() int { return s.proc.pid }

// Done is closed once the server and all its processes are gone.
func (s *Session) Done() <-chan struct{} { return s.finished }

// Err is how the session ended, once Done is closed (nil before): nil
// when the server exited with status 0 by itself after it was ready;
// otherwise an *Error. ExitCode turns it into sglaunch's exit status.
func (s *Session) Err() error {
	select {
	case <-s.finished:
		return s.result()
	default:
		return nil
	}
}

// result builds the session's outcome once it has finished.
func (s *Session) result() error {
	s.mu.Lock()
	why, end, endedAt, stopSig, escalated := s.stopReason, s.end, s.endedAt, s.stopSignal, s.escalated
	s.mu.Unlock()
	e := &Error{
		Reason:     why,
		StopSignal: stopSig,
		Escalated:  escalated,
		Status:     end.status,
		Ran:        true,
		DuringLoad: !s.isReady.Load(),
		After:      endedAt.Sub(s.startedAt),
		Tail:       s.out.tail.lines(tailLines),
		end:        end,
	}
	if end.signal != 0 {
		e.Signal = signalName(end.signal)
	}
	if why == nil {
		if !e.DuringLoad && end.status == 0 {
			return nil
		}
		e.Reason = ErrExited
	}
	return e
}
