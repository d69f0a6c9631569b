package launch

import (
	"runtime"

	"github.com/sglaunch/sglaunch/internal/leftovers"
)

// sweep ends what launches whose sglaunch is gone left running (a
// setsid worker, a command workload's children), and says so; it runs
// before preflight, whose port check a leftover would fail. On a system
// without /proc there is nothing to find.
func sweep(l *launch) {
	if runtime.GOOS != "linux" {
		return
	}
	log := l.spec.Log
	ended, err := leftovers.Sweep(l.spec.RuntimeDir)
	if err != nil {
		log.Warn("cannot look for what earlier launches left running: " + err.Error())
	}
	for _, e := range ended {
		log.Warn(e.String())
	}
}
