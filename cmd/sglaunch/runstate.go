package main

import (
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/leftovers"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

// launchState keeps the runtime state file of one serve or bench launch
// ($XDG_RUNTIME_DIR/sglaunch/<launch id>.json), so that verify and diff
// find the running server and a later sglaunch finds what this one left
// if it is killed: written before anything starts, again when the server
// runs and when it is ready, removed when sglaunch is done.
type launchState struct {
	dir   string
	state *runstate.State
	log   *slog.Logger
	wrote bool
}

// newLaunch begins a launch: it writes the launch's state before
// anything starts. p is nil for a launch that starts no
// server (bench --url), which still marks its command workloads.
func (e *env) newLaunch(p *plan.Plan, mode, url string, s plan.Config, log *slog.Logger) *launchState {
	dir := statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv)
	st := &runstate.State{LaunchID: runstate.NewLaunchID(), Mode: mode, URL: url, NoServer: p == nil,
		Load: health.Load{StartedAt: time.Now()}}
	if p != nil {
		st.Profile, st.Source, st.Mode, st.Fingerprint = p.Profile, runstate.SourceOf(p.Source), p.Mode, p.Fingerprint
		st.Port, st.URL, st.Plan = p.Port(), p.BaseURL(), p.View()
	}
	st.SetSglaunch(os.Getpid())
	l := &launchState{dir: dir, state: st, log: log}
	l.write()
	return l
}

// sweepLeftovers ends what launches whose sglaunch is gone left running
// (a setsid worker, a command workload's children), and says so; serve
// and bench call it before preflight, whose port check a leftover would
// fail. On a system without /proc there is nothing to find.
func (e *env) sweepLeftovers(s plan.Config, log *slog.Logger) {
	if runtime.GOOS != "linux" {
		return
	}
	ended, err := leftovers.Sweep(statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv))
	if err != nil {
		log.Warn("cannot look for what earlier launches left running: " + err.Error())
	}
	for _, l := range ended {
		log.Warn(l.String())
	}
}

// ID is the launch id its processes carry.
func (l *launchState) ID() string { return l.state.LaunchID }

// hooks wires the state file and the launch id to a launch.
func (l *launchState) hooks(opts *supervise.Options) {
	opts.LaunchID = l.state.LaunchID
	opts.OnStarted, opts.OnReady = l.started, l.ready
}

func (l *launchState) started(pid int) {
	l.state.SetServer(pid)
	l.write()
}

func (l *launchState) ready(load health.Load) {
	l.state.Load = load
	l.write()
}

func (l *launchState) write() {
	if err := runstate.Write(l.dir, l.state); err != nil {
		l.log.Warn("runtime state: " + err.Error())
		return
	}
	l.wrote = true
}

func (l *launchState) remove() {
	if l.wrote {
		_ = runstate.Remove(l.dir, l.state.LaunchID)
	}
}
