package launcher

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// Sentinels for how a process ends badly; check them with errors.Is on
// the error Err or Wait return. A supervisor that stops the server for a
// reason of its own (a start timeout, liveness) passes its own sentinel
// to RequestStop; Error wraps it.
var (
	// ErrStart: the server could not be started at all.
	ErrStart = errors.New("cannot start server")
	// ErrExited: the server ended by itself (a crash during the load, or
	// any exit after it).
	ErrExited = errors.New("server exited")
	// ErrUnsupported: this system cannot run a server (Linux only).
	ErrUnsupported = errors.New("running a server needs Linux")
	// ErrKilled: Stop had to SIGKILL a server that did not stop by itself.
	ErrKilled = errors.New("server killed")
	// ErrInterrupted: stopped on request (a signal to sglaunch, a
	// cancelled context, Stop).
	ErrInterrupted = errors.New("stopped on request")
)

// tailLines is how much of the server's output an error carries.
const tailLines = 40

// Error is how a session ended when it did not end well: why, how the
// server ended, and the last lines of its output. Reason wraps one of the
// sentinels.
type Error struct {
	Reason     error
	Status     ExitStatus     // the server's exit status (when Ran)
	Ran        bool           // the server ran and was waited for
	Signal     string         // "SIGKILL" when the server was killed by a signal
	DuringLoad bool           // before the server was ready
	LoadStop   bool           // the stop was requested before the server was ready
	StopSignal syscall.Signal // the signal a requested stop sent (0: none)
	Escalated  bool           // sglaunch had to SIGKILL a server that did not stop
	After      time.Duration
	Tail       []string // last lines of the server's output
	end        exit
}

func (e *Error) Unwrap() error { return e.Reason }

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case errors.Is(e.Reason, ErrExited):
		crash := e.end.signal == syscall.SIGKILL // nobody here sent it
		if crash {
			fmt.Fprintf(&b, "server exited with SIGKILL (exit status %d)", int(e.end.status))
		} else {
			fmt.Fprintf(&b, "server %s", e.end)
		}
		if e.DuringLoad {
			fmt.Fprintf(&b, " during the load, %s after start", secs(e.After))
		} else {
			fmt.Fprintf(&b, " %s after start", secs(e.After))
		}
		if crash {
			// SGLang's own end after a failed rank, not (necessarily) an
			// OOM kill: say which is likely and how to tell.
			b.WriteString(": a crash, as SGLang ends its own process tree when a rank fails (the rank's traceback is in the output); an OOM kill or a kill -9 ends the same way, and the kernel log tells")
		}
	default:
		b.WriteString(e.Reason.Error())
		if e.Ran {
			fmt.Fprintf(&b, "; the server %s", e.end)
			switch {
			case e.Escalated && e.StopSignal == syscall.SIGKILL:
				b.WriteString(": sglaunch killed its tree at once")
			case e.LoadStop && e.Escalated:
				b.WriteString(": stopped during the load, with nothing to drain, so sglaunch ended its tree")
			case e.LoadStop:
				b.WriteString(": stopped during the load, with nothing to drain")
			case e.Escalated:
				b.WriteString(": it did not stop within stop_timeout and sglaunch killed it")
			case errors.Is(e.Reason, ErrInterrupted) && e.StopSignal != 0 && e.StopSignal != syscall.SIGKILL:
				b.WriteString(": it drained and stopped by itself")
			}
		}
	}
	if len(e.Tail) > 0 && !errors.Is(e.Reason, ErrInterrupted) {
		fmt.Fprintf(&b, "\nlast %d lines of server output:", len(e.Tail))
		for _, l := range e.Tail {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// ExitCode maps a session's result to sglaunch's exit status: 0 for nil;
// the server's own status when the server ended by itself or was stopped
// on request; 1 when sglaunch gave up on it (start timeout, stall,
// unhealthy) or could not start it.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) && e.Ran && (errors.Is(e.Reason, ErrExited) || errors.Is(e.Reason, ErrInterrupted)) {
		return int(e.Status)
	}
	return 1
}

// StoppedBySignal reports a requested stop that ended as a stop: a
// signal (N) asked the server to stop, and it ended by N or by SIGKILL,
// either its own (SGLang SIGKILLs its own tree after draining) or
// sglaunch's after stop_timeout (Escalated). sglaunch then ends by N too,
// as a shell's child does, so that systemd records a clean stop rather
// than a failed unit with status 137 after `systemctl stop`: the stop was
// asked for and is done, and the log says when it had to be forced. A
// server that exited with a status of its own is not a clean stop.
func StoppedBySignal(err error) (syscall.Signal, bool) {
	var e *Error
	if !errors.As(err, &e) || !e.Ran || e.StopSignal == 0 || !errors.Is(e.Reason, ErrInterrupted) {
		return 0, false
	}
	n := e.StopSignal
	if e.end.signal == n || e.end.signal == drainSignal(n) || (e.end.signal == syscall.SIGKILL && n != syscall.SIGKILL) {
		return n, true
	}
	return 0, false
}
