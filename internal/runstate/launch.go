package runstate

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/plan"
)

// Launch is the state file of one launch through its life: Begin writes
// it before anything starts, every change is written at once (a reader
// never sees a change that the launch has made but not stored), and End
// removes it when sglaunch is done.
type Launch struct {
	dir   string
	warn  func(error)
	mu    sync.Mutex
	state State
	wrote bool
}

// NewState is the state of a new launch of p in mode; p is nil for a
// launch that starts no server (bench --url), which still marks its
// command workloads with the launch id. url is the server's when p is nil.
func NewState(p *plan.Plan, mode, url string) *State {
	st := &State{LaunchID: NewLaunchID(), Mode: mode, URL: url, NoServer: p == nil, Load: health.Load{StartedAt: time.Now()}}
	if p != nil {
		st.Profile, st.Source, st.Mode, st.Fingerprint = p.Profile, SourceOf(p.Source), p.Mode, p.Fingerprint
		st.Port, st.URL, st.Plan = p.Port(), p.BaseURL(), p.View()
	}
	st.SetSglaunch(os.Getpid())
	return st
}

// Begin writes st under dir and returns its launch. A first write that
// fails is an error: a launch without its state file could not be found
// by status or verify, nor its leftovers by the next start's sweep. warn
// is told of a later write that failed.
func Begin(dir string, st *State, warn func(error)) (*Launch, error) {
	l := &Launch{dir: dir, warn: warn, state: *st}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := Write(l.dir, &l.state); err != nil {
		return nil, fmt.Errorf("runtime state in %s: %w; a launch is not started untracked (set SGLAUNCH_RUNTIME_DIR to a directory of your own)", dir, err)
	}
	l.wrote = true
	return l, nil
}

// ID is the launch id its processes carry.
func (l *Launch) ID() string { return l.state.LaunchID }

// Update changes the state and writes it at once.
func (l *Launch) Update(change func(*State)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.state)
	l.writeLocked()
}

// Started records the server's process.
func (l *Launch) Started(pid int) { l.Update(func(s *State) { s.SetServer(pid) }) }

// Ready records the load's timing once the server is ready.
func (l *Launch) Ready(load health.Load) { l.Update(func(s *State) { s.Load = load }) }

// End removes the state file, if one was written; a nil launch (never
// begun) has none.
func (l *Launch) End() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote {
		_ = Remove(l.dir, l.state.LaunchID)
	}
}

func (l *Launch) writeLocked() {
	if err := Write(l.dir, &l.state); err != nil {
		if l.warn != nil {
			l.warn(err)
		}
		return
	}
	l.wrote = true
}
