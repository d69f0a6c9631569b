package supervise

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/launcher"
)

// workerCleanExit is how SGLang ends a node ≥ 1 after rank 0's drained
// shutdown: its schedulers take rank 0's ShutdownReq and exit 0,
// block_until_scheduler_exits returns, and launch_server (which has no
// node-rank guard) goes on to serve HTTP without a tokenizer manager:
// the lifespan's start-up fails and uvicorn exits 3 ("Application startup
// failed. Exiting."; srt/entrypoints/engine.py _launch_subprocesses,
// srt/entrypoints/http_server.py launch_server).
const workerCleanExit = 3

// groupStopWait is how long a worker whose server exited 3 waits for
// rank 0 to say the group stops: rank 0's server ends (and its sglaunch
// tells the group) a moment after its schedulers have exited.
const groupStopWait = 5 * time.Second

// rank0Stopped says a group failure is rank 0 stopping the group, not a
// rank lost. group words it "rank 0 stops the group" (worker.go).
func rank0Stopped(failure error) bool {
	return failure != nil && errors.Is(failure, ErrGroupFailed) && strings.Contains(failure.Error(), "rank 0 stops the group")
}

// cleanEndAfterGroupStop reports whether a worker rank's end is SGLang's
// clean end of a node ≥ 1: its server exited by itself with status 3
// after the load, while rank 0 was stopping the group. A 3 at any other
// time (during the load, with the group running) is a failure.
func cleanEndAfterGroupStop(err error, groupStopped bool) bool {
	var e *launcher.Error
	if !groupStopped || !errors.As(err, &e) || !e.Ran || e.DuringLoad || e.Signal != "" {
		return false
	}
	return errors.Is(err, ErrExited) && e.Status == workerCleanExit
}

// workerEnd is a worker rank's result: nil when its server's exit 3
// was the clean end after rank 0's drained shutdown, else err.
func (s *Session) workerEnd(err error) error {
	g := s.opts.Group
	if !s.isWorker() || !cleanEndAfterGroupStop(err, true) {
		return err
	}
	t := time.NewTimer(groupStopWait)
	defer t.Stop()
	select {
	case <-g.Failed():
	case <-g.StopRequested():
	case <-t.C:
	}
	if !cleanEndAfterGroupStop(err, rank0Stopped(g.Failure()) || stopRequested(g)) {
		return err
	}
	s.log.Info(fmt.Sprintf("rank %d: its server exited with status %d after rank 0's drained shutdown: SGLang's clean end of a node ≥ 1", g.Rank(), workerCleanExit))
	return nil
}
