package launcher

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logfile"
	"github.com/sglaunch/sglaunch/internal/tail"
	"github.com/sglaunch/sglaunch/internal/tty"
	"github.com/sglaunch/sglaunch/plan"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return tty.Is(f) }

// live registers the servers of the sessions running in this process, so
// that one session's sweep never takes another session's tree.
var live = struct {
	sync.Mutex
	servers map[int]bool
}{servers: map[int]bool{}}

// Process is one run of a plan's server, from Start until no process of
// its tree is left. Its methods are safe for concurrent use.
type Process struct {
	plan *plan.Plan
	opts Options
	log  *slog.Logger

	proc      *process
	tree      *tree
	out       *output
	startedAt time.Time
	isReady   atomic.Bool
	release   func() bool // unregisters the Start context's stop hook

	mu         sync.Mutex
	stopReason error          // why the first stop was requested
	stopSignal syscall.Signal // the signal the first stop request asked for
	loadStop   bool           // the first stop came before the server was ready
	grace      time.Duration  // how long the first stop waits before SIGKILL
	escalated  bool           // sglaunch SIGKILLed a server that did not stop
	stopping   chan struct{}  // closed on the first stop request
	killNow    chan struct{}  // closed to cut the grace period short
	killOnce   sync.Once
	finished   chan struct{} // closed when the whole tree is gone
	end        exit
	endedAt    time.Time
}

// Start starts the plan's server exactly as planned and returns once it
// runs. The server runs in its own process group (its own session under
// a terminal) with a parent-death SIGKILL; sglaunch becomes the child
// subreaper so that processes leaving that group can still be found.
// Cancelling ctx at any time, also after Start returned, stops the server
// as a stop signal would.
func Start(ctx context.Context, p *plan.Plan, opts Options) (*Process, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.TTY == nil {
		opts.TTY = os.Stdin
	}
	if opts.TreeWatchEvery <= 0 {
		opts.TreeWatchEvery = DefaultTreeWatchEvery
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	s := &Process{
		plan:     p,
		opts:     opts,
		log:      log,
		grace:    p.StopTimeout,
		stopping: make(chan struct{}),
		killNow:  make(chan struct{}),
		finished: make(chan struct{}),
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	s.log.Info(fmt.Sprintf("server started (pid %d)", s.proc.pid), "fingerprint", p.ShortFingerprint())
	s.release = context.AfterFunc(ctx, func() {
		s.RequestStop(newReason(ErrInterrupted, "stopped: "+context.Cause(ctx).Error()), syscall.SIGTERM)
	})
	go s.watch()
	go s.reapLoop()
	if opts.Signals != nil {
		go s.signalLoop(opts.Signals)
	}
	return s, nil
}

// start forks the server with its output going through pipes (or a
// pseudo-terminal) to the relays.
func (s *Process) start() error {
	if err := becomeSubreaper(); err != nil {
		s.log.Warn("cannot become the child subreaper (" + err.Error() + "); a process that leaves the server's session may survive it")
	}
	spared := childrenOfSelf()
	var file *lockedFile
	if s.opts.LogFile != "" {
		// 0600: the server's output can hold what a masker cannot know.
		f, err := os.OpenFile(s.opts.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return inputerr.Errorf("log file: %w", err)
		}
		file = &lockedFile{f: f, w: logfile.New(f, s.opts.LogFile, func(msg string) { s.log.Warn(msg) })}
	}
	s.startedAt = time.Now()
	s.out = &output{observe: s.opts.Observe, tail: &tail.Buffer{}, file: file, secrets: secretBytes(s.plan.SecretValues())}
	cmd := command(s.plan, s.opts.LaunchID, s.opts.IgnoreSIGTERM)
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
	if s.opts.IgnoreSIGTERM {
		waitExec(s.proc.pid, s.proc.exited)
	}
	live.Lock()
	live.servers[s.proc.pid] = true
	live.Unlock()
	s.tree = newTree(s.proc.pid, spared, s.opts.LaunchID)
	return nil
}

func (s *Process) startPiped(cmd *exec.Cmd) (*process, error) {
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

// watch ends the process: it waits for the server to exit by itself or
// for a stop request, gives a stopped server its grace period to exit,
// then kills everything left of the tree and waits for the output to
// drain.
func (s *Process) watch() {
	select {
	case <-s.proc.exited:
	case <-s.stopping:
		s.mu.Lock()
		grace := s.grace
		s.mu.Unlock()
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-s.proc.exited:
		case <-s.killNow:
			s.setEscalated()
		case <-timer.C:
			s.setEscalated()
			if grace == 0 {
				break
			}
			s.log.Warn(s.overdueMessage(grace))
		}
	}
	s.onStopping("stopping")
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

func (s *Process) onStopping(why string) {
	if s.opts.OnStopping != nil {
		s.opts.OnStopping(why)
	}
}

// killTree SIGKILLs the server's process group and every process of its
// tree found through /proc, including those that changed session, until
// none is left and the server's own exit has been collected.
func (s *Process) killTree() {
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

// DefaultTreeWatchEvery spaces the walks of /proc that note the
// server's tree and reap adopted orphans (a few milliseconds each) when
// Options.TreeWatchEvery is unset.
const DefaultTreeWatchEvery = time.Second

// reapLoop keeps the tree's membership current while the server runs,
// and collects adopted orphans that exit, so that they do not linger as
// zombies of sglaunch.
func (s *Process) reapLoop() {
	t := time.NewTicker(s.opts.TreeWatchEvery)
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

// RequestStop starts stopping the server: sig goes to its main process
// only, and the grace period (the plan's stop_timeout) starts; after it,
// the group and every process of the tree are SIGKILLed. SGLang's ranks
// install no SIGTERM handler: a SIGTERM to the whole group kills them at
// once, the main process's child watchdog sees it and kills the tree, and
// in-flight requests are cut. The main process alone drains them. why wraps one of
// the sentinels and becomes the reason Err reports. Later requests only
// forward their signal.
func (s *Process) RequestStop(why error, sig syscall.Signal) { s.requestStop(why, sig, -1) }

// RequestStopWithin is RequestStop with its own grace period: 0 kills
// the tree at once (a multi-node group that lost a rank can finish no
// request).
func (s *Process) RequestStopWithin(why error, sig syscall.Signal, grace time.Duration) {
	s.requestStop(why, sig, grace)
}

// requestStop is RequestStop with a grace period (negative: the plan's,
// or loadStopGrace before the server is ready). The signal the server
// gets is the one SGLang drains on for sig (drainSignal); the stop is
// recorded as sig, so that sglaunch ends by the signal it received.
func (s *Process) requestStop(why error, sig syscall.Signal, grace time.Duration) {
	sent := drainSignal(sig)
	s.mu.Lock()
	first := s.stopReason == nil && !s.proc.done()
	loading := false
	if first {
		s.stopReason, s.stopSignal = why, sig
		loading = !s.isReady.Load() && grace < 0 && sig != syscall.SIGKILL
		s.loadStop = loading
		switch {
		case grace >= 0:
			s.grace = grace
		case loading:
			s.grace = min(s.grace, loadStopGrace)
		}
		grace = s.grace
		close(s.stopping)
	}
	s.mu.Unlock()
	if first {
		s.onStopping("stopping: " + why.Error())
		s.log.Info(stopMessage(why, sig, sent, grace, loading))
	}
	if sent != 0 {
		if err := s.proc.signalMain(sent); err != nil {
			s.log.Warn(fmt.Sprintf("cannot send %s to the server: %v", signalName(sent), err))
		}
	}
}

func (s *Process) setEscalated() {
	s.mu.Lock()
	s.escalated = true
	s.mu.Unlock()
}

// kill cuts the grace period short: everything is killed at once.
func (s *Process) kill() {
	s.killOnce.Do(func() { close(s.killNow) })
}

// Stop stops the server: sig to its main process, grace to exit, then
// SIGKILL to the group and to every remaining process of its tree. It
// returns once no process of the tree is left, with the server's exit
// status. When ctx ends first, the rest of the grace period is skipped.
// Stopping a process that has already ended returns its status. The
// error is nil when the server stopped by itself within grace, and
// ErrKilled when it had to be killed.
func (s *Process) Stop(ctx context.Context, sig syscall.Signal, grace time.Duration) (ExitStatus, error) {
	s.requestStop(newReason(ErrInterrupted, "stopped"), sig, grace)
	select {
	case <-s.finished:
	case <-ctx.Done():
		s.kill()
		<-s.finished
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.escalated {
		return s.end.status, fmt.Errorf("%w: it did not stop within %s", ErrKilled, secs(s.grace))
	}
	return s.end.status, nil
}

// Wait waits until no process of the tree is left and returns Err, or
// returns ctx's error when ctx ends first (the server keeps running).
func (s *Process) Wait(ctx context.Context) error {
	select {
	case <-s.finished:
		return s.result()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SetReady marks the end of the load: from now on an exit is not "during
// the load".
func (s *Process) SetReady() { s.isReady.Store(true) }

// PID is the server's main process id.
func (s *Process) PID() int { return s.proc.pid }

// StartedAt is when the server was started.
func (s *Process) StartedAt() time.Time { return s.startedAt }

// Exited is closed once the server's main process has exited (its tree
// may still be being killed).
func (s *Process) Exited() <-chan struct{} { return s.proc.exited }

// Stopping is closed at the first stop request.
func (s *Process) Stopping() <-chan struct{} { return s.stopping }

// Done is closed once the server and all its processes are gone.
func (s *Process) Done() <-chan struct{} { return s.finished }

// Running reports whether the main process still runs.
func (s *Process) Running() bool { return !s.proc.done() }

// Err is how the process ended, once Done is closed (nil before): nil
// when the server exited with status 0 by itself after it was ready;
// otherwise an *Error. ExitCode turns it into sglaunch's exit status.
func (s *Process) Err() error {
	select {
	case <-s.finished:
		return s.result()
	default:
		return nil
	}
}

// result builds the outcome once the process has finished.
func (s *Process) result() error {
	s.mu.Lock()
	why, end, endedAt, stopSig, escalated := s.stopReason, s.end, s.endedAt, s.stopSignal, s.escalated
	loadStop := s.loadStop
	s.mu.Unlock()
	e := &Error{
		Reason:     why,
		StopSignal: stopSig,
		Escalated:  escalated,
		Status:     end.status,
		Ran:        true,
		DuringLoad: !s.isReady.Load(),
		LoadStop:   loadStop,
		After:      endedAt.Sub(s.startedAt),
		Tail:       s.out.tail.Lines(tailLines),
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

// secs renders a duration as an operator reads it: "12.5s".
func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
