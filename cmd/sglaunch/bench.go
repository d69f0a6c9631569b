package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/internal/version"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/profiles"
)

func benchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "bench",
		Usage: "benchmark the server exactly as the profile launches it, and keep the result with its plan",
		Description: "Prints the effective config (bench mode), starts the server as serve does, waits until /health\n" +
			"answers 200, runs the workloads, writes a record and stops the server. --url measures a server\n" +
			"that is already running instead (the record then says the plan is unknown).\n\n" +
			"Workloads: the built-ins decode-1 (one stream, 1024 in / 512 out) and sweep (concurrency 1, 8,\n" +
			"32, 128), the profile's bench.workloads, or YAML files. Without --workload: the profile's\n" +
			"workloads, else decode-1. Exit status: 0 ok, 1 the run failed (its record is kept, marked\n" +
			"failed), 2 bad input, 128+N interrupted by signal N.",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags: []cli.Flag{
			profileFlag, setFlag, unsetFlag,
			&cli.StringSliceFlag{Name: "workload", Aliases: []string{"w"}, Usage: "run workload `NAME` or the workloads of a YAML FILE (repeatable, in order)"},
			&cli.StringFlag{Name: "url", Usage: "benchmark the server already running at `URL` instead of launching one"},
			&cli.BoolFlag{Name: "keep-running", Usage: "leave the server running (supervised) after the run, until a signal stops it"},
			&cli.StringFlag{Name: "out", Usage: "write the record into `DIR` (default $SGLAUNCH_STATE_DIR/records)"},
			&cli.BoolFlag{Name: "server-output", Usage: "also show the server's output (always kept in a log beside the record)"},
			&cli.StringFlag{Name: "log-format", Usage: "sglaunch's own lines as `FORMAT`: text or json (default $SGLAUNCH_LOG_FORMAT, else text)"},
			&cli.BoolFlag{Name: "json", Usage: "print the record as JSON instead of the result tables"},
			skipPreflightFlag, allowSiteFlag,
		},
		Action:      func(c *cli.Context) error { return e.bench(c) },
		Subcommands: benchRecordCommands(e),
	}
}

// benchSetup is what a run needs, resolved from the command line before
// anything starts; every problem found here is an input error.
type benchSetup struct {
	settings  launcher.Settings
	plan      *launcher.Plan // nil with --url
	url       string
	workloads []bench.Workload
	store     *bench.Store
	profile   string // with --url: the profile the workloads came from
}

func (e *env) benchSetup(c *cli.Context) (*benchSetup, error) {
	s, err := e.settings(c)
	if err != nil {
		return nil, err
	}
	b := &benchSetup{settings: s, url: strings.TrimRight(c.String("url"), "/")}
	var prof *profiles.Profile
	if b.url != "" {
		if err := checkURL(b.url); err != nil {
			return nil, err
		}
		extra, err := e.passthrough(c)
		if err != nil {
			return nil, err
		}
		if len(c.StringSlice("set")) > 0 || len(c.StringSlice("unset")) > 0 || len(extra) > 0 {
			return nil, inputerr.Errorf("--set, --unset and server arguments apply only when sglaunch launches the server; drop them or drop --url")
		}
		if c.String("profile") != "" || s.Profile != "" {
			if prof, err = e.loadProfile(c, s); err != nil {
				return nil, err
			}
			b.profile = prof.Name
		}
	} else {
		b.plan, _, err = e.loadPlan(c, launcher.ModeBench)
		if err != nil {
			return nil, err
		}
		if prof, err = e.loadProfile(c, s); err != nil {
			return nil, err
		}
	}
	fromProfile, err := bench.ProfileWorkloads(prof)
	if err != nil {
		return nil, err
	}
	if b.workloads, err = bench.Select(c.StringSlice("workload"), fromProfile); err != nil {
		return nil, err
	}
	dir := c.String("out")
	if dir == "" {
		dir = bench.RecordsDir(statedir.State(s.StateDir, e.getenv))
	}
	b.store, err = bench.OpenStore(dir)
	return b, err
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return inputerr.Errorf("--url %q: want the server's base URL, like http://127.0.0.1:30000", raw)
	}
	return nil
}

func (e *env) bench(c *cli.Context) error {
	b, err := e.benchSetup(c)
	if err != nil {
		return err
	}
	format, flag := b.settings.LogFormat, "SGLAUNCH_LOG_FORMAT"
	if c.IsSet("log-format") {
		format, flag = c.String("log-format"), "--log-format"
	}
	log, err := launcher.NewLogger(e.stderr, format)
	if err != nil {
		return inputerr.Errorf("%s: %w", flag, err)
	}
	if b.plan != nil {
		fmt.Fprint(e.stderr, b.plan.Text())
		if err := e.beforeLaunch(c, b.plan, log); err != nil {
			return err
		}
	}

	// The first stop signal ends the run (and the server with it); a
	// second one cuts the server's grace period short. Only a signal
	// stops a run: a closed stdout must not take the server down.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	runCtx, cancelRun := context.WithCancelCause(context.WithoutCancel(c.Context))
	defer cancelRun(nil)
	stopCtx, cancelStop := context.WithCancel(context.Background())
	defer cancelStop()
	var interrupted atomic.Int32
	go func() {
		n := 0
		for sig := range sigs {
			if n++; n == 1 {
				if ss, ok := sig.(syscall.Signal); ok {
					interrupted.Store(int32(ss))
				}
				cancelRun(fmt.Errorf("interrupted by %v", sig))
			} else {
				cancelStop()
			}
		}
	}()

	rec := bench.NewRecord(time.Now())
	rec.Argv, rec.Sglaunch = redactCommandLine(e.args), version.String()
	rec.Host = bench.HostFacts(runCtx, e.probes, e.lookPath)
	r := &benchRun{e: e, b: b, rec: rec, log: log, runCtx: runCtx, cancelRun: cancelRun, stopCtx: stopCtx,
		keep: c.Bool("keep-running"), serverOutput: c.Bool("server-output"), asJSON: c.Bool("json")}
	runErr := r.run()
	if err := r.report(); err != nil {
		return err
	}
	switch {
	case runErr != nil && interrupted.Load() != 0:
		return &statusError{code: 128 + int(interrupted.Load()), msg: "benchmark interrupted; the record keeps what completed"}
	case runErr != nil:
		return &statusError{code: 1, msg: runErr.Error()}
	}
	return nil
}

// redactCommandLine masks secrets in sglaunch's own command line: the
// values of secret flags (--api-key X, after --) and of --set
// assignments to secret names (--set env.HF_TOKEN=X).
func redactCommandLine(args []string) []string {
	out := redact.Argv(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		val, inline := strings.CutPrefix(a, "--set=")
		if !inline {
			if a != "--set" || i+1 >= len(out) {
				continue
			}
			i++
			val = out[i]
		}
		if key, _, ok := strings.Cut(val, "="); ok && redact.IsSecret(key) {
			masked := key + "=" + redact.Mask
			if inline {
				masked = "--set=" + masked
			}
			out[i] = masked
		}
	}
	return out
}

// apiKey is the server's --api-key, which requests must carry.
func apiKey(plan *launcher.Plan) string {
	if v := launcher.CanonicalArgs(plan.Argv[3:], true)["--api-key"]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
