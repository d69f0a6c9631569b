package main

import (
	"log/slog"
	"os"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

// launchState keeps the runtime state file of a serve or bench launch
// ($XDG_RUNTIME_DIR/sglaunch/<profile>.json), so that verify and diff find
// the running server: written when the server starts and when it is
// ready, removed when sglaunch is done with it.
type launchState struct {
	dir   string
	state *runstate.State
	log   *slog.Logger
	wrote bool
}

func (e *env) launchState(plan *plan.Plan, s plan.Config, log *slog.Logger) *launchState {
	return &launchState{
		dir: statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv), log: log,
		state: &runstate.State{Profile: plan.Profile, Mode: plan.Mode, Fingerprint: plan.Fingerprint, SglaunchPID: os.Getpid(),
			Port: plan.Port(), URL: plan.BaseURL(), Load: health.Load{StartedAt: time.Now()}, Plan: plan.View()},
	}
}

// hooks wires the state file to a launch.
func (l *launchState) hooks(opts *supervise.Options) {
	opts.OnStarted, opts.OnReady = l.started, l.ready
}

func (l *launchState) started(pid int) {
	l.state.ServerPID = pid
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
		_ = runstate.Remove(l.dir, l.state.Profile, l.state.SglaunchPID)
	}
}
