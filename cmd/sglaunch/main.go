package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGPIPE)
	e := defaultEnv()
	code := run(ctx, os.Args, e)
	stop()
	if e.raise != 0 {
		dieBy(e.raise)
	}
	os.Exit(code)
}

// dieBy ends sglaunch by sig, as a shell's child stopped by sig ends: the
// shell reports 128+N and systemd records a clean stop.
func dieBy(sig syscall.Signal) {
	signal.Reset(sig)
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(5 * time.Second) // the signal ends the process before this does
	os.Exit(128 + int(sig))
}

// env is what the CLI takes from the outside world; tests replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	lookupEnv      func(string) (string, bool)
	environ        func() []string
	lookPath       func(string) (string, error)
	args           []string       // the command line, for what follows --
	raise          syscall.Signal // end by this signal once run returns
	// probes answers nvidia-smi's query and the Python probe once per
	// command: bench asks what its preflight asked.
	probes *hostprobe.Memo
}

func defaultEnv() *env {
	return &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, environ: os.Environ, lookPath: exec.LookPath}
}

func (e *env) getenv(k string) string {
	v, _ := e.lookupEnv(k)
	return v
}

// run runs the CLI and returns the exit status: 0 success, 2 bad input,
// 1 a failed run, or the server's own status where the server ended.
func run(ctx context.Context, args []string, e *env) (code int) {
	defer func() {
		// No Go stack trace reaches a user; a panic is still a bug to report.
		if r := recover(); r != nil {
			fmt.Fprintf(e.stderr, "sglaunch: internal error: %v (please report this)\n", r)
			code = 1
		}
	}()
	e.args, e.probes = args, new(hostprobe.Memo)
	app := newApp(e)
	arranged, err := cliflow.Arrange(app, args, checkArgs)
	if err == nil {
		err = app.RunContext(ctx, arranged)
	}
	code, e.raise = cliflow.Status(err, e.stderr)
	return code
}

func newApp(e *env) *cli.App {
	return &cli.App{
		Name:    "sglaunch",
		Usage:   "launch, supervise and benchmark an SGLang server from one named profile",
		Version: version.String(),
		Writer:  e.stdout, ErrWriter: e.stderr,
		Reader:               e.stdin,
		EnableBashCompletion: false,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         cliflow.UsageError,
		Commands:             commands(e),
		Action:               cliflow.RootAction,

		// One value per --set, --unset and -w: a value holds commas
		// (args.cuda-graph-bs=[1, 2, 4], env.CUDA_VISIBLE_DEVICES=0,1).
		DisableSliceFlagSeparator: true,
	}
}

// commands lists the subcommands; each lives in its own file.
func commands(e *env) []*cli.Command {
	cmds := []*cli.Command{
		serveCommand(e),
		unitCommand(e),
		slurmCommand(e),
		lwsCommand(e),
		benchCommand(e),
		tuneCommand(e),
		configCommand(e),
		profilesCommand(e),
		preflightCommand(e),
		verifyCommand(e),
		diffCommand(e),
		statusCommand(e),
	}
	cliflow.Decorate(cmds, helpTexts, func(path string, c *cli.Command) {
		if readsRecords(path, c) && c.Before == nil {
			c.Before = requireRecordsDir
		}
	})
	return cmds
}
