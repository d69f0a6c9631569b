package launcher

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func TestExitStatusString(t *testing.T) {
	tests := []struct {
		s    ExitStatus
		want string
	}{
		{0, "exit status 0"},
		{3, "exit status 3"},
		{128 + 9, "exit status 137 (SIGKILL)"},
		{128 + 15, "exit status 143 (SIGTERM)"},
		{255, "exit status 255"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("ExitStatus(%d): got %q, want %q", int(tt.s), got, tt.want)
		}
	}
}

func TestExitString(t *testing.T) {
	if got, want := (exit{status: 137, signal: syscall.SIGKILL}).String(), "was killed by SIGKILL (exit status 137)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := (exit{status: 3}).String(), "exited with status 3"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"crash", &Error{Reason: ErrExited, Ran: true, Status: 3}, 3},
		{"exit 0 during the load", &Error{Reason: ErrExited, Ran: true, Status: 0, DuringLoad: true}, 0},
		{"stopped on a signal", &Error{Reason: newReason(ErrInterrupted, "stopped on SIGTERM"), Ran: true, Status: 137}, 137},
		{"start timeout", &Error{Reason: fmt.Errorf("%w: x", ErrStartTimeout), Ran: true, Status: 137}, 1},
		{"stall", &Error{Reason: fmt.Errorf("%w: x", ErrStalled), Ran: true, Status: 0}, 1},
		{"unhealthy", &Error{Reason: newReason(ErrUnhealthy, "x"), Ran: true, Status: 137}, 1},
		{"cannot start", fmt.Errorf("%w: no such file", ErrStart), 1},
		{"wrapped", fmt.Errorf("bench: %w", &Error{Reason: ErrExited, Ran: true, Status: 9}), 9},
		{"input error", inputerr.Errorf("log file: bad"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{
			"crash during the load",
			&Error{Reason: ErrExited, Ran: true, Status: 3, DuringLoad: true, After: 2500 * time.Millisecond, Tail: []string{"a", "b"}, end: exit{status: 3}},
			"server exited with status 3 during the load, 2.5s after start\nlast 2 lines of server output:\n  a\n  b",
		},
		{
			// Issue 10: SGLang ends its tree with SIGKILL when a rank
			// fails; "killed by SIGKILL" alone read like an OOM kill.
			"killed after ready",
			&Error{Reason: ErrExited, Ran: true, Status: 137, After: time.Minute, end: exit{status: 137, signal: syscall.SIGKILL}},
			"server exited with SIGKILL (exit status 137) 60.0s after start: a crash, as SGLang ends its own process tree when a rank fails (the rank's traceback is in the output); an OOM kill or a kill -9 ends the same way, and the kernel log tells",
		},
		{
			"interrupted: no tail",
			&Error{Reason: newReason(ErrInterrupted, "stopped on SIGTERM"), Ran: true, Tail: []string{"x"}, end: exit{status: 0}},
			"stopped on SIGTERM; the server exited with status 0",
		},
		{
			"start timeout",
			&Error{Reason: fmt.Errorf("%w: not ready after 10.0s", ErrStartTimeout), Ran: true, Tail: []string{"x"}, end: exit{status: 137, signal: syscall.SIGKILL}},
			"start timeout: not ready after 10.0s; the server was killed by SIGKILL (exit status 137)\nlast 1 lines of server output:\n  x",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	if !errors.Is(&Error{Reason: newReason(ErrUnhealthy, "x")}, ErrUnhealthy) {
		t.Error("errors.Is does not see the sentinel through Error")
	}
	if strings.Contains(ErrStartTimeout.Error(), "\n") {
		t.Error("sentinel with a newline")
	}
}

// A supervisor's own reasons for stopping a server (supervise defines
// the real ones): ExitCode maps every such reason to 1.
var (
	ErrStartTimeout = errors.New("start timeout")
	ErrStalled      = errors.New("no output for the stall timeout")
	ErrUnhealthy    = errors.New("server unhealthy")
)
