package launcher

import (
	"io"
	"log/slog"
	"os"
	"time"
)

// Options says how Start runs the plan's server.
type Options struct {
	// Stdout and Stderr receive the server's output (default os.Stdout
	// and os.Stderr). Under a terminal both streams go to Stdout.
	Stdout, Stderr io.Writer
	// Logger receives sglaunch's own lines (default: text to os.Stderr).
	Logger *slog.Logger
	// LogFile, when set, also gets the server's output appended.
	LogFile string
	// Signals are the signals sglaunch receives (the caller registers them
	// with signal.Notify; a buffered channel). SIGTERM, SIGINT, SIGHUP and
	// SIGQUIT stop the server: they go to its main process, and after
	// the plan's stop_timeout everything left is killed; a second SIGINT
	// kills at once. SIGWINCH resizes the terminal. SIGURG is never
	// forwarded; any other signal is forwarded to the group.
	Signals <-chan os.Signal
	// Terminal runs the server under a pseudo-terminal, for progress
	// bars and colours, when sglaunch itself runs in one.
	Terminal bool
	// TTY is the terminal whose size the pseudo-terminal follows
	// (default os.Stdin).
	TTY *os.File
	// Observe sees every block of the server's output, after masking
	// (the load tracker reads the phases from it). Called from the relay
	// goroutines; it must not block.
	Observe func([]byte)
	// LaunchID, when set, goes into the server's environment as
	// plan.LaunchIDVar: every process of its tree inherits it, and a
	// later sglaunch finds them by it if this one is killed.
	LaunchID string
	// IgnoreSIGTERM starts the server with SIGTERM ignored (through
	// /bin/sh's trap, then exec: the same pid, the plan's argv): its
	// processes outlive a SIGTERM sent to every one of them at once, as
	// Slurm's scancel does to every process of a step, while a handler
	// of the server's own (SGLang's drain, in its main process) still
	// acts on it. A process without one then needs SIGKILL.
	IgnoreSIGTERM bool
	// OnStopping is told why the server is being stopped, at the first
	// stop request and when it ends by itself (systemd's STOPPING=1). It
	// may be called more than once.
	OnStopping func(why string)
	// TreeWatchEvery spaces the walks of /proc that note the server's
	// tree and reap adopted orphans (default DefaultTreeWatchEvery; tests
	// shorten it so that a walk happens within their wait).
	TreeWatchEvery time.Duration
}
