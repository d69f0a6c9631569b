package launcher

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// loadStopGrace bounds the wait after a stop that comes before the
// server is ready. Nothing is being served yet, so there is nothing to
// drain: before the port is bound SGLang's main process has no SIGTERM
// handler (the default action ends it at once); in the warm-up window
// after it, until the first request through its tokenizer manager,
// uvicorn's handler runs and SGLang's shutdown then blocks joining the
// warm-up thread for up to ~120 s before it kills itself (137). Waiting
// stop_timeout there would only end in a misleading "did not stop".
const loadStopGrace = 3 * time.Second

// drainSignal is the signal the server gets for a stop signal sglaunch
// received: the one SGLang drains on. SGLang installs no SIGHUP handler
// (a bare SIGHUP kills its main process at once and cuts every request),
// so a SIGHUP is passed on as SIGTERM; SIGTERM, SIGINT (uvicorn's
// graceful shutdown) and SIGQUIT go as they are.
func drainSignal(sig syscall.Signal) syscall.Signal {
	if sig == syscall.SIGHUP {
		return syscall.SIGTERM
	}
	return sig
}

// stopMessage is the line a stop request logs: what the server gets and
// when its tree is killed; before ready, that there is nothing to drain.
func stopMessage(why error, asked, sent syscall.Signal, grace time.Duration, loading bool) string {
	what := signalName(sent) + " to its main process"
	if sent == 0 {
		what = "no signal"
	}
	if asked != sent && asked != 0 {
		what += fmt.Sprintf(" (SGLang drains on it and has no %s handler)", signalName(asked))
	}
	if loading {
		return fmt.Sprintf("%s during the load: the server is not ready, so there is nothing to drain; ending it (%s, SIGKILL to its tree after %s)", why, what, secs(grace))
	}
	return fmt.Sprintf("%s: stopping the server (%s, SIGKILL to its tree after %s)", why, what, secs(grace))
}

// overdueMessage is the warning when the grace period runs out.
func (s *Process) overdueMessage(grace time.Duration) string {
	s.mu.Lock()
	loading := s.loadStop
	s.mu.Unlock()
	if loading {
		return fmt.Sprintf("server still running %s after a stop during the load (SGLang drains nothing before it is ready); killing its tree", secs(grace))
	}
	return fmt.Sprintf("server still running %s after the stop signal (stop_timeout); killing it", secs(grace))
}

// signalLoop acts on the signals sglaunch receives until the session
// ends: SIGTERM, SIGINT, SIGHUP and SIGQUIT stop the server (its main
// process gets the signal SGLang drains on: see drainSignal); a second
// SIGINT kills at once; SIGWINCH resizes the terminal; SIGURG (the Go
// runtime's preemption signal) and SIGCHLD are sglaunch's own; anything
// else is forwarded.
func (s *Process) signalLoop(sigs <-chan os.Signal) {
	interrupts := 0
	for {
		var sig os.Signal
		select {
		case <-s.finished:
			return
		case sig = <-sigs:
		}
		ss, ok := sig.(syscall.Signal)
		if !ok {
			continue
		}
		switch ss {
		case syscall.SIGURG, syscall.SIGCHLD:
		case syscall.SIGWINCH:
			if s.opts.Terminal {
				s.out.whileOpen(func() { s.proc.resize(s.opts.TTY) })
			}
		case syscall.SIGINT:
			interrupts++
			if interrupts > 1 {
				s.log.Warn("second interrupt: killing the server now")
				s.kill()
				continue
			}
			s.RequestStop(newReason(ErrInterrupted, "stopped on "+signalName(ss)), ss)
		case syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
			s.RequestStop(newReason(ErrInterrupted, "stopped on "+signalName(ss)), ss)
		default:
			_ = s.proc.signalGroup(ss)
		}
	}
}
