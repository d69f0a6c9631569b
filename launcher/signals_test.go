package launcher

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopSignalsAsSGLangTakesThem pins issue 20's fourth defect (a
// SIGHUP passed on as SIGHUP killed SGLang's main process and cut its
// requests) and the wording of a stop before ready.
func TestStopSignalsAsSGLangTakesThem(t *testing.T) {
	for in, want := range map[syscall.Signal]syscall.Signal{
		syscall.SIGHUP: syscall.SIGTERM, syscall.SIGTERM: syscall.SIGTERM,
		syscall.SIGINT: syscall.SIGINT, syscall.SIGQUIT: syscall.SIGQUIT,
	} {
		if got := drainSignal(in); got != want {
			t.Errorf("drainSignal(%v) = %v, want %v", in, got, want)
		}
	}
	why := errors.New("stopped on SIGHUP")
	msg := stopMessage(why, syscall.SIGHUP, syscall.SIGTERM, time.Minute, false)
	if !strings.Contains(msg, "SIGTERM to its main process (SGLang drains on it and has no SIGHUP handler)") {
		t.Errorf("stop message: %q", msg)
	}
	msg = stopMessage(why, syscall.SIGHUP, syscall.SIGTERM, loadStopGrace, true)
	if !strings.Contains(msg, "during the load") || !strings.Contains(msg, "nothing to drain") || !strings.Contains(msg, "after 3.0s") {
		t.Errorf("load stop message: %q", msg)
	}
	// sglaunch ends by the SIGHUP it was sent, whether SGLang drained
	// (and SIGKILLed itself) or died of the SIGTERM during the load.
	for _, end := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		e := &Error{Reason: newReason(ErrInterrupted, "stopped on SIGHUP"), Ran: true, StopSignal: syscall.SIGHUP, end: exit{status: ExitStatus(128 + int(end)), signal: end}}
		if sig, ok := StoppedBySignal(e); !ok || sig != syscall.SIGHUP {
			t.Errorf("server ended by %v: StoppedBySignal = %v, %v; want SIGHUP", end, sig, ok)
		}
	}
	e := &Error{Reason: newReason(ErrInterrupted, "stopped on SIGTERM"), Ran: true, StopSignal: syscall.SIGTERM, LoadStop: true, Escalated: true,
		end: exit{status: 137, signal: syscall.SIGKILL}}
	if got := e.Error(); strings.Contains(got, "stop_timeout") || !strings.Contains(got, "stopped during the load, with nothing to drain, so sglaunch ended its tree") {
		t.Errorf("load stop error: %q", got)
	}
}
