package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/report"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launch"
	"github.com/sglaunch/sglaunch/plan"
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
			"workloads, else decode-1. The record is saved after every level (status interrupted until the\n" +
			"run ends), so a run that is killed keeps what completed.",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags: []cli.Flag{
			profileFlag, setFlag, unsetFlag,
			&cli.StringSliceFlag{Name: "workload", Aliases: []string{"w"}, Usage: "run workload `NAME` or the workloads of a YAML FILE (repeatable, in order)"},
			&cli.StringFlag{Name: "url", Usage: "benchmark the server already running at `URL` instead of launching one"},
			&cli.BoolFlag{Name: "keep-running", Usage: "leave the server running (supervised) after the run, until a signal stops it"},
			benchDirFlag, oldOutDirFlag,
			&cli.StringFlag{Name: "max-failures", Value: "0", Usage: "allow up to `N` failed requests (or N% of them) before the run fails; the record says partial either way"},
			&cli.BoolFlag{Name: "server-output", Usage: "also show the server's output (always kept in a log beside the record)"},
			&cli.StringFlag{Name: "log-format", Usage: "sglaunch's own lines as `FORMAT`: text or json (default $SGLAUNCH_LOG_FORMAT, else text)"},
			&cli.BoolFlag{Name: "json", Usage: "print the record as JSON instead of the result tables"},
			&cli.BoolFlag{Name: "details", Usage: "also write one JSON line per request (timings, token counts, chunk gaps, error) into a file beside the record"},
			skipPreflightFlag, allowSiteFlag, statusAddrFlag, statusProxyFlag,
		},
		Action:      func(c *cli.Context) error { return e.bench(c) },
		Subcommands: benchRecordCommands(e),
	}
}

// benchSetup is what a run needs, resolved from the command line before
// anything starts; every problem found here is an input error.
type benchSetup struct {
	settings  plan.Config
	plan      *plan.Plan // nil with --url
	url       string
	workloads []workload.Workload
	store     *bench.Store
	profile   string // with --url: the profile the workloads came from
	// maxFailures is --max-failures.
	maxFailures bench.FailureBudget
}

func (e *env) benchSetup(c *cli.Context) (*benchSetup, error) {
	s, err := e.settings(c)
	if err != nil {
		return nil, err
	}
	b := &benchSetup{settings: s, url: strings.TrimRight(c.String("url"), "/")}
	var prof *profiles.Profile
	if b.url != "" {
		if err := bench.CheckURL(b.url); err != nil {
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
		b.plan, _, err = e.loadPlan(c, plan.ModeBench)
		if err != nil {
			return nil, err
		}
		if err := bench.CheckLocal(b.plan); err != nil {
			return nil, err
		}
		if prof, err = e.loadProfile(c, s); err != nil {
			return nil, err
		}
	}
	if b.workloads, err = workload.ForRun(c.StringSlice("workload"), prof); err != nil {
		return nil, err
	}
	if b.maxFailures, err = bench.ParseFailureBudget(c.String("max-failures")); err != nil {
		return nil, err
	}
	dir := e.recordsDir(c)
	if dir == "" {
		dir = bench.RecordsDir(statedir.State(s.StateDir, e.getenv))
	}
	b.store, err = bench.OpenStore(dir)
	return b, err
}

func (e *env) bench(c *cli.Context) error {
	b, err := e.benchSetup(c)
	if err != nil {
		return err
	}
	if b.plan != nil {
		if err := needsLinux("sglaunch bench (without --url)"); err != nil {
			return err
		}
	}
	log, err := e.logger(c, b.settings)
	if err != nil {
		return err
	}
	if (c.IsSet(statusAddrFlag.Name) || c.Bool(statusProxyFlag.Name)) && (b.plan == nil || !c.Bool("keep-running")) {
		return inputerr.Errorf("--status-addr and --status-proxy-metrics apply to bench only with --keep-running, when sglaunch launches the server")
	}
	if b.plan != nil {
		e.printPlan(b.plan, log)
	}
	spec := e.launchSpec(c, b.plan, b.settings, log)
	spec.Mode, spec.URL, spec.LogFile = plan.ModeBench, b.url, b.settings.LogFile
	// A bench that ends with its server serves no status; one that keeps
	// it running does, as serve would.
	spec.StatusEndpoint = c.Bool("keep-running")
	spec.Workloads = func(ctx context.Context, w launch.Workloads) error { return e.runBench(ctx, c, b, log, w) }
	return fromLaunch(launch.Run(c.Context, spec))
}

// runBench runs the workloads once the launch is set up: bench.Run
// starts the server through w.Start, measures it and stops it.
func (e *env) runBench(ctx context.Context, c *cli.Context, b *benchSetup, log *slog.Logger, w launch.Workloads) error {
	rec := bench.RecordMaker(ctx, e.args, e.probes, e.lookPath)()
	key := e.getenv("OPENAI_API_KEY")
	spec := bench.RunSpec{
		Plan: b.plan, URL: b.url, URLKey: key, Python: b.settings.Python, Environ: e.environ(),
		Profile: b.profile, Workloads: b.workloads, Store: b.store, Record: rec, LaunchID: w.LaunchID,
		KeepRunning: c.Bool("keep-running"), ServerOutput: c.Bool("server-output"), Details: c.Bool("details"), MaxFailures: b.maxFailures,
		Progress: e.stderr, Log: log, Probes: e.probes,
		Launch: w.Start,
		Locate: bench.Locator(statedir.Runtime(b.settings.RuntimeDir, b.settings.StateDir, e.getenv), key),
		Report: func(rec *bench.Record, path string) error { return e.reportRun(rec, path, c.Bool("json"), log) },
	}
	_, err := bench.Run(ctx, spec, w.Signals)
	return err
}

// reportRun prints the results and where the record is.
func (e *env) reportRun(rec *bench.Record, path string, asJSON bool, log *slog.Logger) error {
	if asJSON {
		if _, err := e.stdout.Write(rec.JSON()); err != nil {
			return err
		}
	} else if len(rec.Results) > 0 {
		if err := report.WriteResults(e.stdout, rec); err != nil {
			return err
		}
	}
	if path != "" {
		log.Info(fmt.Sprintf("record %s (%s) saved to %s", rec.ID, rec.Status, path))
	}
	return nil
}
