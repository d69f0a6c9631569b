package launcher

import (
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/sglaunch/sglaunch/health"
)

// RunOptions says how Launch runs the plan's server.
type RunOptions struct {
	// Stdout and Stderr receive the server's output (default os.Stdout
	// and os.Stderr). Under a terminal both streams go to Stdout.
	Stdout, Stderr io.Writer
	// Logger receives sglaunch's own lines (default: text to os.Stderr).
	Logger *slog.Logger
	// LogFile, when set, also gets the server's output appended.
	LogFile string
	// Signals are the signals sglaunch receives (the caller registers them
	// with signal.Notify; a buffered channel). SIGTERM, SIGINT, SIGHUP and
	// SIGQUIT stop the server: they go to its process group, and after
	// stop_timeout everything left is killed; a second SIGINT kills at
	// once. SIGWINCH resizes the terminal. SIGURG is never forwarded;
	// any other signal is forwarded to the group.
	Signals <-chan os.Signal
	// Terminal runs the server under a pseudo-terminal, for progress
	// bars and colours, when sglaunch itself runs in one.
	Terminal bool
	// TTY is the terminal whose size the pseudo-terminal follows
	// (default os.Stdin).
	TTY *os.File
	// StateDir is sglaunch's state directory; earlier load times of the
	// same plan are remembered there for the ETA. Empty: no memory.
	StateDir string
	// ProgressEvery spaces the status lines during the load (default 30s).
	ProgressEvery time.Duration
	// OnStarted is called once the server's process runs.
	OnStarted func(pid int)
	// OnReady is called once the server is ready, before Launch returns.
	OnReady func(ReadyInfo)
}

// ReadyInfo describes a load that succeeded.
type ReadyInfo struct {
	StartedAt time.Time
	ReadyAt   time.Time // when /health first answered 200
	LoadTime  time.Duration
	// Phases are the start-up steps seen in the server's output, with the
	// time since start.
	Phases    []health.Phase
	ServerPID int
}
