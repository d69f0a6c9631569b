package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/launcher"
)

func serveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "run the server from a profile, exactly as planned",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags:     []cli.Flag{profileFlag, setFlag, unsetFlag, &cli.BoolFlag{Name: "dry-run", Usage: "print the config and exit"}},
		Action: func(c *cli.Context) error {
			plan, _, err := e.loadPlan(c, launcher.ModeServe)
			if err != nil {
				return err
			}
			fmt.Fprint(e.stderr, plan.Text())
			if c.Bool("dry-run") {
				return nil
			}
			cmd := exec.Command(plan.Argv[0], plan.Argv[1:]...)
			cmd.Env = plan.Environ
			cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, e.stdout, e.stderr
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
			defer signal.Stop(sigs)
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("start server: %w", err)
			}
			go func() {
				for s := range sigs {
					_ = cmd.Process.Signal(s)
				}
			}()
			err = cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				st := ee.Sys().(syscall.WaitStatus)
				if st.Signaled() {
					return &statusError{code: 128 + int(st.Signal()), msg: fmt.Sprintf("server killed by %v", st.Signal())}
				}
				return &statusError{code: st.ExitStatus(), msg: fmt.Sprintf("server exited with status %d", st.ExitStatus())}
			}
			return err
		},
	}
}
