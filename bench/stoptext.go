package bench

import (
	"errors"
	"syscall"

	"github.com/sglaunch/sglaunch/launcher"
)

// stopText is how the server's end after the run reads in the record.
// SGLang ends a drained SIGTERM stop by SIGKILLing its own tree, itself
// included (tokenizer_manager.py sigterm_watchdog), so a 137 within the
// grace period is the clean end of a drain, not a kill; only a server
// that had to be killed after stop_timeout is said to be killed.
func stopText(status launcher.ExitStatus, err error) string {
	switch {
	case errors.Is(err, launcher.ErrKilled):
		return "stopped by sglaunch: it did not stop within stop_timeout and was killed (" + status.String() + ")"
	case err != nil:
		return "stopped by sglaunch: " + status.String() + " (" + err.Error() + ")"
	case status == launcher.ExitStatus(128+int(syscall.SIGKILL)):
		return "stopped by sglaunch: drained and ended its own tree, as SGLang does after a SIGTERM (" + status.String() + ")"
	}
	return "stopped by sglaunch: " + status.String()
}
