package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

func serveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the server from a profile and supervise it until it ends (for a terminal or systemd's ExecStart=)",
		Description: "Prints the effective config, starts the server exactly as planned, waits until /health answers 200\n" +
			"(sending READY=1 to systemd), then probes it every health.interval. SIGTERM, SIGINT, SIGHUP and SIGQUIT\n" +
			"stop it: the signal goes to the server's main process (SGLang drains there), and after stop_timeout everything left is\n" +
			"killed; a second Ctrl-C kills at once. Exits with the server's exit status (128+N when killed by\n" +
			"signal N), 1 when sglaunch gave up on the server (start timeout, stall, unhealthy), 2 for bad input.\n" +
			"A stop asked for by SIGTERM, SIGINT or SIGHUP that the server completes by itself (SGLang drains,\n" +
			"then SIGKILLs its own tree) ends sglaunch by that signal, which systemd counts as a clean stop.",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags: []cli.Flag{
			profileFlag, setFlag, unsetFlag,
			&cli.BoolFlag{Name: "dry-run", Usage: "print the config and exit"},
			&cli.StringFlag{Name: "log-file", Usage: "also append the server's output to `PATH` (default $SGLAUNCH_LOG_FILE)"},
			&cli.StringFlag{Name: "log-format", Usage: "sglaunch's own lines as `FORMAT`: text or json (default $SGLAUNCH_LOG_FORMAT, else text)"},
			skipPreflightFlag, allowSiteFlag, statusAddrFlag, statusProxyFlag,
		},
		Action: func(c *cli.Context) error {
			plan, s, err := e.loadPlan(c, plan.ModeServe)
			if err != nil {
				return err
			}
			placement, err := e.place(plan)
			if err != nil {
				return err
			}
			format, flag := s.LogFormat, "SGLAUNCH_LOG_FORMAT"
			if c.IsSet("log-format") {
				format, flag = c.String("log-format"), "--log-format"
			}
			log, err := logging.New(e.stderr, format)
			if err != nil {
				return inputerr.Errorf("%s: %w", flag, err)
			}
			logFile := s.LogFile
			if c.IsSet("log-file") {
				logFile = c.String("log-file")
			}
			e.printPlan(plan, log)
			if c.Bool("dry-run") {
				return nil
			}
			if err := needsLinux("sglaunch serve"); err != nil {
				return err
			}
			e.sweepLeftovers(s, log)
			if err := e.beforeLaunch(c, plan, log); err != nil {
				return err
			}
			benchmarked := e.reportBenchmarked(c, plan, log)
			opts := supervise.Options{
				Options:  launcher.Options{Stdout: e.stdout, Stderr: e.stderr, Logger: log, LogFile: logFile},
				StateDir: statedir.State(s.StateDir, e.getenv),
			}
			state := e.newLaunch(plan, plan.Mode, "", s, log)
			defer state.remove()
			state.hooks(&opts)
			var rank *runstate.Group
			if placement != nil {
				rank = groupState(plan, placement, statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv))
				state.state.Group = rank
			}
			endpoint, err := e.statusEndpoint(c, plan, s, log, benchmarked, rank)
			if err != nil {
				return err
			}
			defer endpoint.close()
			endpoint.wire(&opts, state)
			if placement != nil {
				srv := &rankServer{}
				member, err := e.joinGroup(c.Context, plan, placement, log, srv, rank)
				if err != nil {
					return err
				}
				defer member.Close()
				opts.Group = member
				// scancel signals every process of the step: the
				// server's outlive it, so that rank 0 drains.
				opts.IgnoreSIGTERM = placement.Orchestrator == "slurm"
				// rank 0 may have given another --dist-init-addr.
				state.state.Plan = plan.View()
				started := opts.OnStarted
				opts.OnStarted = func(pid int) { srv.pid.Store(int64(pid)); started(pid) }
			}
			err = serve(c.Context, e, plan, opts)
			if placement != nil {
				return groupEnd(err)
			}
			return err
		},
	}
}

// serve launches and supervises the server and maps how it ended to
// sglaunch's exit status.
func serve(ctx context.Context, e *env, p *plan.Plan, opts supervise.Options) error {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGWINCH)
	defer signal.Stop(sigs)
	opts.Signals = sigs
	if f, ok := e.stdout.(*os.File); ok && launcher.IsTerminal(f) {
		opts.Terminal, opts.TTY = true, f
	}
	// Only a signal stops the server: a closed stdout (SIGPIPE cancels
	// the CLI's context) must not take a GPU server down with it.
	ctx = context.WithoutCancel(ctx)
	sess, err := supervise.Launch(ctx, p, opts)
	if err == nil {
		err = sess.Supervise(ctx)
		if err == nil {
			opts.Logger.Info("server exited with status 0")
			return nil
		}
	}
	return sessionEnd(opts.Logger, err)
}

// groupEnd is how a rank of a multi-node group ends: a requested stop
// (by signal) and bad input end as they do on one node; any other end
// (this rank's server failed, another rank did, the group was lost) is
// exit status 1, on every rank, so that the orchestrator restarts the
// whole group.
func groupEnd(err error) error {
	var se *statusError
	if errors.As(err, &se) && se.raise == 0 && se.code != 0 && se.code != 2 {
		return &statusError{code: 1, msg: se.msg}
	}
	return err
}

// escalated reports a stop that sglaunch had to finish with SIGKILL.
func escalated(err error) bool {
	var e *launcher.Error
	return errors.As(err, &e) && e.Escalated
}

// sessionEnd logs how a session ended (as JSON under --log-format json)
// and ends sglaunch with the matching status.
func sessionEnd(log *slog.Logger, err error) error {
	if inputerr.Is(err) {
		return err
	}
	if sig, ok := launcher.StoppedBySignal(err); ok && (sig == syscall.SIGTERM || sig == syscall.SIGINT || sig == syscall.SIGHUP) {
		// A requested stop, done. (Not for SIGQUIT: Go's own SIGQUIT
		// action prints a stack dump.) One that needed the SIGKILL still
		// ends the unit inactive, not failed (B6), and says so.
		if escalated(err) {
			log.Warn(err.Error())
		} else {
			log.Info(err.Error())
		}
		return &statusError{code: 128 + int(sig), raise: sig}
	}
	code := launcher.ExitCode(err)
	if code == 0 {
		log.Info(err.Error())
	} else {
		log.Error(err.Error())
	}
	return &statusError{code: code}
}
