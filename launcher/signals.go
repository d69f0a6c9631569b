package launcher

import (
	"os"
	"syscall"
)

// signalLoop acts on the signals sglaunch receives until the session
// ends: SIGTERM, SIGINT, SIGHUP and SIGQUIT stop the server (the signal
// itself goes to its main process); a second SIGINT kills at once;
// SIGWINCH resizes the terminal; SIGURG (the Go runtime's preemption
// signal) and SIGCHLD are sglaunch's own; anything else is forwarded.
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
