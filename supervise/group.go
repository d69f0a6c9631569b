package supervise

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/launcher"
	"golang.org/x/sys/unix"
)

// ErrGroupFailed: another rank of a multi-node group failed or was lost,
// or rank 0 stopped the group. Re-exported from group.
var ErrGroupFailed = group.ErrGroupFailed

// workerStopMargin is how much longer than stop_timeout a worker keeps
// its server up for rank 0's drain: rank 0 kills its own tree after
// stop_timeout, and then says so.
const workerStopMargin = 10 * time.Second

// groupStop is a rank's part in the group's stop.
type groupStop struct {
	started  chan struct{} // closed once the server runs (Process is set)
	quit     chan struct{} // closed once the session is done
	signaled atomic.Bool   // this rank's own stop signal started the stop
	// killedAfterDrain: a worker's server, started with SIGTERM
	// ignored, was killed at once after rank 0 drained, as planned.
	killedAfterDrain atomic.Bool
}

// isWorker reports whether the session runs a rank ≥ 1 of a group: its
// /health is SGLang's dummy one, which says nothing of the group.
func (s *Session) isWorker() bool { return s.opts.Group != nil && s.opts.Group.Rank() > 0 }

// groupSignals stands between sglaunch's signals and the launcher on a
// rank of a group: the first stop signal stops the whole group, which
// drains on rank 0. Rank 0 passes it on (its server drains); a worker
// tells rank 0 and keeps its server up until rank 0 has drained
// (watchGroup), since a worker's server that ends cuts every request of
// the group. Later stop signals pass on as they are, but on a worker
// only a second SIGINT (Ctrl-C twice) does: Slurm signals a cancelled
// step's tasks both itself and through srun.
func (s *Session) groupSignals(in <-chan os.Signal) <-chan os.Signal {
	g := s.opts.Group
	s.gs = &groupStop{started: make(chan struct{}), quit: make(chan struct{})}
	if g == nil || in == nil {
		return in
	}
	out := make(chan os.Signal, cap(in)+1)
	go func() {
		select {
		case <-s.gs.started:
		case <-s.gs.quit:
			return
		}
		asked := false
		for {
			var sig os.Signal
			select {
			case sig = <-in:
			case <-s.gs.quit:
				return
			}
			if ss, ok := sig.(syscall.Signal); ok && isStopSignal(ss) {
				switch {
				case !asked:
					asked = true
					s.gs.signaled.Store(true)
					g.RequestStop(fmt.Sprintf("%s to rank %d", unix.SignalName(ss), g.Rank()))
					if g.Rank() > 0 {
						continue
					}
				case g.Rank() > 0 && ss != syscall.SIGINT:
					// Slurm signals a cancelled step's tasks itself and
					// through srun: the same stop, told twice.
					s.log.Info(fmt.Sprintf("%s again: this rank's server stays up while rank 0 drains (a second interrupt stops it now)", unix.SignalName(ss)))
					continue
				}
			}
			select {
			case out <- sig:
			default:
			}
		}
	}()
	return out
}

func isStopSignal(s syscall.Signal) bool {
	return s == syscall.SIGTERM || s == syscall.SIGINT || s == syscall.SIGHUP || s == syscall.SIGQUIT
}

// watchGroup acts on the group's end. A failure stops the server at
// once: a group that lost a rank can finish no request (its collectives
// hang), so there is nothing to drain. A requested stop drains: rank 0
// stops its server as on one node; a worker keeps its own up until rank
// 0 has drained (or stop_timeout and a margin have passed), then stops
// it.
func (s *Session) watchGroup() {
	g := s.opts.Group
	close(s.gs.started)
	go func() {
		<-s.Done()
		close(s.gs.quit)
	}()
	if g == nil {
		return
	}
	go func() {
		select {
		case <-g.Failed():
			s.killForGroup()
			return
		case <-g.StopRequested():
		case <-s.Done():
			return
		}
		if g.Rank() == 0 {
			if !s.gs.signaled.Load() {
				s.RequestStop(&reason{ErrInterrupted, "the group stops: " + g.StopReason()}, syscall.SIGTERM)
			}
		} else {
			s.log.Info(fmt.Sprintf("the group stops (%s): this rank's server stays up while rank 0 drains its requests (up to stop_timeout)", g.StopReason()))
			hold := time.NewTimer(s.plan.StopTimeout + workerStopMargin)
			defer hold.Stop()
			select {
			case <-g.Drained():
				// SGLang's nodes >= 1 end by themselves once rank 0's
				// schedulers have shut down (theirs take its ShutdownReq;
				// the server then exits 3): give that a moment, and stop
				// the server only if it is still there.
				selfEnd := time.NewTimer(workerSelfEndGrace)
				select {
				case <-s.Done():
					selfEnd.Stop()
					return
				case <-selfEnd.C:
				}
				s.stopWorker(&reason{ErrInterrupted, "the group stopped: rank 0 drained"})
			case <-hold.C:
				s.log.Warn("rank 0 did not say it drained within stop_timeout; stopping this rank's server")
				s.stopWorker(&reason{ErrInterrupted, "the group stops: rank 0 did not finish its drain in time"})
			case <-g.Failed():
				s.killForGroup()
				return
			case <-s.Done():
				return
			}
		}
		select {
		case <-g.Failed():
			s.killForGroup()
		case <-s.Done():
		}
	}()
}

// workerSelfEndGrace is how long a worker waits, once rank 0 has
// drained, for its server to end by itself as SGLang's nodes >= 1 do.
const workerSelfEndGrace = 2 * time.Second

// stopWorker stops a worker's server once rank 0 has drained: SIGTERM,
// or, for a server started with SIGTERM ignored (under Slurm), the
// tree at once: a worker's server has nothing of its own to drain.
func (s *Session) stopWorker(why error) {
	if !s.opts.IgnoreSIGTERM {
		s.RequestStop(why, syscall.SIGTERM)
		return
	}
	s.gs.killedAfterDrain.Store(true)
	s.RequestStopWithin(why, syscall.SIGKILL, 0)
}

// killForGroup kills the server's tree at once for the group's failure.
func (s *Session) killForGroup() {
	s.RequestStopWithin(&reason{ErrGroupFailed, s.opts.Group.Failure().Error()}, syscall.SIGKILL, 0)
}

// tellGroup says to the group that this rank's server ended, and why:
// the first failure of a group names its rank and node; during a
// requested stop the end is no failure (rank 0's tells the workers the
// group drained).
func (s *Session) tellGroup(err error) {
	g := s.opts.Group
	if g == nil {
		return
	}
	if stopRequested(g) && g.Failure() == nil {
		g.StopDone(describeEnd(err))
		return
	}
	g.Fail(group.End{Why: describeEnd(err), LostPeer: serverLostPeer(err)})
}

func stopRequested(g group.Member) bool {
	select {
	case <-g.StopRequested():
		return true
	default:
		return false
	}
}

// groupOutcome is how a rank's session ends, told truthfully to the
// orchestrator: a requested stop of the group, done, is exit status 0
// on every rank, whichever rank got the signal; a group that failed is
// a failure on every rank (exit status 1), also on a rank whose own
// server was stopped by a signal or exited with status 0. A rank whose
// own server failed says so in its own words, unless its server only
// followed a lost peer: then the group's failure is its cause.
func (s *Session) groupOutcome(err error) error {
	g := s.opts.Group
	if g == nil {
		return err
	}
	var e *launcher.Error
	if f := g.Failure(); f != nil {
		lost := serverLostPeer(err)
		if errors.As(err, &e) && errors.Is(e.Reason, ErrExited) && e.Status != 0 && lost == "" {
			return err // this rank's own server failed: its own words
		}
		msg := f.Error()
		if lost != "" {
			msg += "; this rank's server ended with it, after it lost a peer (" + lost + ")"
		}
		out := &launcher.Error{Reason: &reason{ErrGroupFailed, msg}}
		if e != nil {
			c := *e
			c.Reason = out.Reason
			out = &c
		}
		return out
	}
	if stopRequested(g) {
		if err == nil || !errors.As(err, &e) || !e.Ran {
			return err
		}
		c := *e
		msg := "the group stopped on request (" + g.StopReason() + ")"
		switch {
		case s.gs.killedAfterDrain.Load():
			msg += ", drained; this rank's server, which ignores SIGTERM, was ended after rank 0 drained"
			c.Escalated = false
		case !e.Escalated:
			msg += ", drained"
		}
		c.Reason = &reason{ErrInterrupted, msg}
		c.StopSignal, c.Status = 0, 0
		return &c
	}
	if err == nil {
		// A rank's server that exits by itself leaves a group that
		// cannot serve: a failure, as the other ranks were told.
		return &reason{ErrGroupFailed, fmt.Sprintf("rank %d: its server exited with status 0 by itself", g.Rank())}
	}
	return err
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
	case errors.As(err, &e) && e.Ran && errors.Is(err, ErrInterrupted):
		return fmt.Sprintf("its server stopped, %s", e.Status)
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
	case <-g.StopRequested():
		if s.isWorker() {
			// The group stops before it was ready: this rank's server
			// stays up for rank 0's drain (watchGroup); wait for its end.
			<-s.Exited()
		}
		return ErrInterrupted
	}
}
