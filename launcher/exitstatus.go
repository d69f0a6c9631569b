package launcher

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitStatus is a process's exit status as a shell reports it: the exit
// code, or 128+N when the process was killed by signal N.
type ExitStatus int

// String is "exit status 3", or "exit status 137 (SIGKILL)" where the
// status is in the range a shell uses for death by signal.
func (s ExitStatus) String() string {
	if s > 128 && s < 128+65 {
		if name := unix.SignalName(syscall.Signal(s - 128)); name != "" {
			return fmt.Sprintf("exit status %d (%s)", int(s), name)
		}
	}
	return fmt.Sprintf("exit status %d", int(s))
}

// LogValue logs the status as a number.
func (s ExitStatus) LogValue() slog.Value { return slog.IntValue(int(s)) }

// exit is how the server's main process ended.
type exit struct {
	status ExitStatus
	signal syscall.Signal // non-zero: killed by this signal
}

func exitOf(ps *os.ProcessState) exit {
	if ps == nil {
		return exit{status: 1}
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exit{status: ExitStatus(128 + int(ws.Signal())), signal: ws.Signal()}
	}
	return exit{status: ExitStatus(ps.ExitCode())}
}

// String describes the end the way an operator reads it.
func (e exit) String() string {
	if e.signal != 0 {
		return fmt.Sprintf("was killed by %s (exit status %d)", signalName(e.signal), int(e.status))
	}
	return fmt.Sprintf("exited with status %d", int(e.status))
}

func signalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	return sig.String()
}
