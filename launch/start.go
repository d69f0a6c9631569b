package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

// options are the session's: its output, the launch id, the runtime
// state's hooks, the status endpoint and the group.
func (l *launch) options(stdout, stderr io.Writer) supervise.Options {
	s := l.spec
	opts := supervise.Options{
		Options:  launcher.Options{Stdout: stdout, Stderr: stderr, Logger: s.Log, LogFile: s.LogFile, LaunchID: l.state.ID()},
		StateDir: s.StateDir,
		OnReady:  l.state.Ready,
		OnStarted: func(pid int) {
			l.pid.Store(int64(pid))
			l.state.Started(pid)
		},
	}
	if l.endpoint != nil {
		opts.Observer = l.endpoint.state
	}
	if l.member != nil {
		opts.Group = l.member
		// scancel signals every process of the step: the server's
		// outlive it, so that rank 0 drains.
		opts.IgnoreSIGTERM = s.Placement != nil && s.Placement.Orchestrator == "slurm"
	}
	return opts
}

// serve starts the server, supervises it until it ends and maps how it
// ended to sglaunch's exit status.
func (l *launch) serve(ctx context.Context) error {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	opts := l.options(l.spec.Stdout, l.spec.Stderr)
	opts.Signals = sigs
	if f, ok := l.spec.Stdout.(*os.File); ok && launcher.IsTerminal(f) {
		opts.Terminal, opts.TTY = true, f
	}
	// Only a signal stops the server: a closed stdout (SIGPIPE cancels
	// the CLI's context) must not take a GPU server down with it.
	ctx = context.WithoutCancel(ctx)
	sess, err := l.steps.start(ctx, l.spec.Plan, opts)
	if err == nil {
		err = sess.Supervise(ctx)
		if err == nil {
			l.spec.Log.Info("server exited with status 0")
			return nil
		}
	}
	return sessionEnd(l.spec.Log, err)
}

// workloads runs the caller's workloads with a starter of the server
// (bench); they stop the server before they return.
func (l *launch) workloads(ctx context.Context) error {
	// Only a signal stops a run: a closed stdout must not take the server down.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	w := Workloads{LaunchID: l.state.ID(), Signals: sigs}
	if l.spec.Plan != nil {
		w.Start = l.startFor
	}
	return l.spec.Workloads(context.WithoutCancel(ctx), w)
}

// startFor launches p's server as serve does, its output to out.
func (l *launch) startFor(ctx context.Context, p *plan.Plan, out io.Writer) (bench.Server, error) {
	sess, err := l.steps.start(ctx, p, l.options(out, out))
	if err != nil {
		return nil, err
	}
	return benchServer{sess}, nil
}

// benchServer is a session as bench.Run drives it.
type benchServer struct{ session }

// Stop stops the server; a stop that had to kill it after stop_timeout
// is also bench.ErrStopKilled, which bench tells apart from a drain.
func (s benchServer) Stop(ctx context.Context) (fmt.Stringer, error) {
	status, err := s.session.Stop(ctx)
	if errors.Is(err, launcher.ErrKilled) {
		err = fmt.Errorf("%w: %w", bench.ErrStopKilled, err)
	}
	return status, err
}
