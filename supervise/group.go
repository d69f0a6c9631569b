package supervise

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/launcher"
)

// ErrGroupFailed: another rank of a multi-node group failed or was lost,
// or rank 0 stopped the group. Re-exported from group.
var ErrGroupFailed = group.ErrGroupFailed

// isWorker reports whether the session runs a rank ≥ 1 of a group: its
// /health is SGLang's dummy one, which says nothing of the group.
func (s *Session) isWorker() bool { return s.opts.Group != nil && s.opts.Group.Rank() > 0 }

// watchGroup stops the server at once when the group fails: a group
// that lost a rank can finish no request (its collectives hang), so
// there is nothing to drain.
func (s *Session) watchGroup() {
	g := s.opts.Group
	if g == nil {
		return
	}
	go func() {
		select {
		case <-g.Failed():
			s.RequestStopWithin(&reason{ErrGroupFailed, g.Failure().Error()}, syscall.SIGKILL, 0)
		case <-s.Done():
		}
	}()
}

// tellGroup says to the group that this rank's server ended, and why:
// the first failure of a group names its rank and node.
func (s *Session) tellGroup(err error) {
	g := s.opts.Group
	if g == nil {
		return
	}
	g.Fail(describeEnd(err))
}

// describeEnd is how a rank's end reads to the other ranks.
func describeEnd(err error) string {
	var e *launcher.Error
	switch {
	case err == nil:
		return "its server exited with status 0"
	case errors.Is(err, ErrGroupFailed):
		return "stopped with the group"
	case errors.As(err, &e) && e.Ran && errors.Is(err, ErrExited):
		what := "exited"
		if e.DuringLoad {
			what = "exited during the load"
		}
		return fmt.Sprintf("its server %s, %s", what, e.Status)
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

// waitGroupReady holds READY=1 until every rank is up: rank 0's /health
// passed and every worker's server runs.
func (s *Session) waitGroupReady() error {
	g := s.opts.Group
	if g == nil {
		return nil
	}
	g.LocalReady()
	select {
	case <-g.GroupReady():
	default:
		s.log.Info(fmt.Sprintf("rank %d is up; waiting for every rank of the group", g.Rank()))
		s.notify.Status(fmt.Sprintf("rank %d up; waiting for the group", g.Rank()))
	}
	select {
	case <-g.GroupReady():
		return nil
	case <-g.Failed():
		return g.Failure()
	case <-s.Exited():
		return ErrExited
	case <-s.Stopping():
		return ErrInterrupted
	}
}
