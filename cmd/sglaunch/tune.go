package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launch"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/tune"
)

func tuneCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "tune",
		Usage: "search a space of settings (managed variables, SGLang flags) for the fastest server, and write the winner as a profile",
		Description: "Each point of the space is the base profile with --set overrides, launched once and measured with\n" +
			"the objective's workload round by round (the base profile itself is always a point: the baseline).\n" +
			"A point whose plan already has a finished record of the workload is reused. A crash or a failed\n" +
			"workload marks the point failed, with the phase of the load it died in, and the search goes on.\n" +
			"The record is saved after every step: after a signal or kill -9, --resume goes on. The winner is\n" +
			"named only when it beats the baseline beyond noise (the 95 % interval of bench compare); its\n" +
			"profile, which extends the base and sets only what changed, is written beside the record.\n\n" +
			"The space is the profile's tune: section, or a YAML file (--space), with parameters: (KEY: [values], {range: [A, B], step: N} or\n" +
			"{pow2: [A, B]}), objective: (workload, metric, direction), constraints:, strategy:, count:, seed:,\n" +
			"rounds:, budget:, keep:.",
		Flags: []cli.Flag{
			profileFlag,
			&cli.StringFlag{Name: "space", Usage: "the search space: a YAML `FILE`"},
			&cli.StringFlag{Name: "strategy", Usage: "`S`: grid, random, adaptive (racing) or halving (default the space's, else grid, or adaptive when the budget cannot hold the grid)"},
			&cli.DurationFlag{Name: "budget", Usage: "stop cleanly when the next point would not finish within `D` (90m, 2h); overrides the space's"},
			&cli.IntFlag{Name: "rounds", Usage: "`N` rounds a point gets in full (default the space's, else the workload's)"},
			&cli.StringFlag{Name: "resume", Usage: "go on with the tune in `DIR` or with this ID (under $SGLAUNCH_STATE_DIR/tunes)"},
			&cli.StringFlag{Name: "dir", Usage: "write the tune into `DIR`, a directory of its own (default $SGLAUNCH_STATE_DIR/tunes/ID)"},
			&cli.StringFlag{Name: "log-format", Usage: "sglaunch's own lines as `FORMAT`: text or json (default $SGLAUNCH_LOG_FORMAT, else text)"},
			skipPreflightFlag, allowSiteFlag,
			&cli.BoolFlag{Name: "slurm", Usage: "plan the tune and print an sbatch job array whose tasks each measure a share of the points on a node of their own, into the tune's directory (shared by the nodes); then --resume collects the shares and prints the next stage's array for the points left (halving's contenders, points a task left), or judges"},
			&cli.IntFlag{Name: "tasks", Value: 4, Usage: "with --slurm: at most `N` tasks in each stage's job array"},
			&cli.StringFlag{Name: "partition", Usage: "with --slurm: sbatch --partition `NAME`"},
			&cli.StringFlag{Name: "time", Usage: "with --slurm: sbatch --time `LIMIT` for each task"},
			&cli.StringFlag{Name: "account", Usage: "with --slurm: sbatch --account `NAME`"},
			&cli.StringFlag{Name: "job-output", Usage: "with --slurm: sbatch --output `PATTERN` (default Slurm's slurm-%A_%a.out)"},
			&cli.IntFlag{Name: "gpus-per-node", Usage: "with --slurm: sbatch --gpus-per-node `N`"},
			&cli.StringFlag{Name: "shard", Usage: "with --resume: measure share `K/N` of the stage's points (what a task of a --slurm job array runs)"},
			&cli.IntFlag{Name: "stage", Usage: "with --shard: the job array's stage `S` (0 the first; a task refuses a stage --resume has moved past)"},
			&cli.BoolFlag{Name: "local", Usage: "with --resume of a --slurm tune: measure the points left (and halving's further stages) on this host instead of printing the next stage's job array"},
		},
		Action:      func(c *cli.Context) error { return e.tune(c) },
		Subcommands: tuneRecordCommands(e),
	}
}

// tunesDir is where tunes live by default.
func (e *env) tunesDir(s plan.Config) string {
	return filepath.Join(statedir.State(s.StateDir, e.getenv), "tunes")
}

func (e *env) tune(c *cli.Context) error {
	s, err := e.settings(c)
	if err != nil {
		return err
	}
	if c.NArg() > 0 {
		return inputerr.Errorf("unexpected argument %q; sglaunch tune takes flags only", c.Args().First())
	}
	rec, shard, shards, err := tune.Open(e.tuneOptions(c, s))
	if err != nil {
		return err
	}
	prof, err := e.finder(s).Load(rec.Base)
	if err != nil {
		return err
	}
	fromProfile, err := workload.ProfileWorkloads(prof)
	if err != nil {
		return err
	}
	resolve := func(sets []string) (*plan.Plan, error) {
		return plan.Resolve(plan.Request{Profile: prof, Mode: plan.ModeBench, Config: s, Sets: sets,
			Environ: e.environ(), LookPath: e.lookPath, SimDir: e.simDir(c)})
	}
	w, base, err := tune.Check(rec, fromProfile, resolve)
	if err != nil {
		return err
	}
	if err := needsLinux("sglaunch tune"); err != nil && !c.Bool("slurm") {
		return err
	}
	log, err := e.logger(c, s)
	if err != nil {
		return err
	}
	store, err := bench.OpenStore(rec.StoreDir(bench.RecordsDir(statedir.State(s.StateDir, e.getenv))))
	if err != nil {
		return err
	}

	ctx := context.WithoutCancel(c.Context)
	cfg := tune.Config{
		Resolve: resolve, Workload: w, Store: store,
		NewBenchRecord: bench.RecordMaker(ctx, e.args, e.probes, e.lookPath),
		Progress:       e.stderr, Log: log, Probes: e.probes,
		Shard: shard, Shards: shards,
	}
	if c.Bool("slurm") {
		return e.tuneArray(c, cfg, rec, log)
	}
	if rec.Shared && shards == 0 {
		n, err := rec.Collect()
		if err != nil {
			return err
		}
		log.Info(fmt.Sprintf("collected %d point(s) the job array's tasks measured", n))
		if rec.Array != nil && !c.Bool("local") {
			done, err := e.tuneNextArray(cfg, rec, log)
			if err != nil || done {
				return err
			}
		}
	}
	log.Info(fmt.Sprintf("tune %s: %s; record %s", rec.ID, rec.Space.Describe(), rec.Path()))
	// One launch for the whole search (the sweep, preflight of the base
	// plan, the runtime state), whose starter launches each point's
	// server in turn. The supervisor's lines for every point would bury
	// the progress: only its warnings and errors are shown.
	spec := e.launchSpec(c, base, s, logging.AtLeast(log, slog.LevelWarn))
	spec.Mode = plan.ModeBench
	var runErr error
	spec.Workloads = func(ctx context.Context, w launch.Workloads) error {
		cfg.Launch, cfg.Signals = w.Start, w.Signals
		runErr = tune.Search(ctx, cfg, rec)
		return nil
	}
	if err := launch.Run(ctx, spec); err != nil {
		return fromLaunch(err)
	}
	fmt.Fprintln(e.stdout)
	if err := tune.WriteShow(e.stdout, rec); err != nil {
		return err
	}
	var intr *tune.Interrupted
	switch {
	case errors.As(runErr, &intr):
		return &cliflow.Exit{Code: 128 + int(intr.Signal), Msg: intr.Error()}
	case runErr != nil:
		return &cliflow.Exit{Code: 1, Msg: runErr.Error()}
	}
	return nil
}

// tuneOptions reads the tune's flags.
func (e *env) tuneOptions(c *cli.Context, s plan.Config) tune.Options {
	ref := c.String("profile")
	if ref == "" {
		ref = s.Profile
	}
	return tune.Options{
		TunesDir: e.tunesDir(s), Resume: c.String("resume"), Profile: ref,
		LoadBase: func(ref string) (tune.Base, error) {
			prof, err := e.finder(s).Load(ref)
			if err != nil {
				return tune.Base{}, err
			}
			if profiles.IsPath(ref) {
				if abs, err := filepath.Abs(ref); err == nil {
					ref = abs
				}
			}
			return tune.Base{Ref: ref, Name: prof.Name, Space: prof.Tune, SpaceFile: prof.TuneFile}, nil
		},
		SpaceFile: c.String("space"), Strategy: c.String("strategy"), Budget: c.Duration("budget"), Rounds: c.Int("rounds"),
		Dir: c.String("dir"), Slurm: c.Bool("slurm"), Shard: c.String("shard"), Stage: c.Int("stage"), Local: c.Bool("local"),
		Given: c.IsSet, Argv: redact.CommandLine(e.args),
	}
}

// tuneArray plans the tune and prints the job array that measures it.
func (e *env) tuneArray(c *cli.Context, cfg tune.Config, rec *tune.Record, log *slog.Logger) error {
	script, err := tune.PrepareArray(cfg, rec, tune.Array{
		Partition: c.String("partition"), Time: c.String("time"), Account: c.String("account"),
		Output: c.String("job-output"), GPUsPerNode: c.Int("gpus-per-node"), Tasks: c.Int("tasks"),
		SkipPreflight: c.Bool("skip-preflight"),
	})
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("tune %s planned (%d points) in %s; submit the job array with sbatch, then run: sglaunch tune --resume %s", rec.ID, len(rec.Points), rec.Dir(), rec.Dir()))
	_, err = fmt.Fprint(e.stdout, script)
	return err
}

// tuneNextArray prints the next stage's job array of a collected tune
// --slurm when points are left to measure; done is false when none are,
// and the resume goes on to judge.
func (e *env) tuneNextArray(cfg tune.Config, rec *tune.Record, log *slog.Logger) (done bool, err error) {
	script, err := tune.NextArray(cfg, rec)
	if err != nil || script == "" {
		return false, err
	}
	log.Info(rec.Note + " (submit the job array printed with sbatch; --local measures the points here instead)")
	_, err = fmt.Fprint(e.stdout, script)
	return true, err
}
