package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/selfexe"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/internal/version"
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
			"rounds:, budget:, keep:. Exit status: 0 the search ended (with or without a winner, or at the\n" +
			"budget), 1 it could not run, 2 bad input, 128+N interrupted by signal N.",
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
			&cli.BoolFlag{Name: "slurm", Usage: "plan the tune and print an sbatch job array whose tasks each measure a share of the points on a node of their own, into the tune's directory (shared by the nodes); then --resume collects and judges"},
			&cli.IntFlag{Name: "tasks", Value: 4, Usage: "with --slurm: `N` tasks in the job array"},
			&cli.StringFlag{Name: "partition", Usage: "with --slurm: sbatch --partition `NAME`"},
			&cli.StringFlag{Name: "time", Usage: "with --slurm: sbatch --time `LIMIT` for each task"},
			&cli.StringFlag{Name: "account", Usage: "with --slurm: sbatch --account `NAME`"},
			&cli.StringFlag{Name: "job-output", Usage: "with --slurm: sbatch --output `PATTERN` (default Slurm's slurm-%A_%a.out)"},
			&cli.IntFlag{Name: "gpus-per-node", Usage: "with --slurm: sbatch --gpus-per-node `N`"},
			&cli.StringFlag{Name: "shard", Usage: "with --resume: measure share `K/N` of the points (what a task of the --slurm job array runs)"},
		},
		Action:      func(c *cli.Context) error { return e.tune(c) },
		Subcommands: tuneRecordCommands(e),
	}
}

// tunesDir is where tunes live by default.
func (e *env) tunesDir(s plan.Config) string {
	return filepath.Join(statedir.State(s.StateDir, e.getenv), "tunes")
}

// tuneDir finds a tune by directory or ID; "" is the newest.
func (e *env) tuneDir(s plan.Config, ref string) (string, error) {
	if ref != "" {
		if fi, err := os.Stat(ref); err == nil && fi.IsDir() {
			return ref, nil
		}
		if strings.ContainsRune(ref, os.PathSeparator) {
			return "", inputerr.Errorf("tune %s: no such directory", ref)
		}
		dir := filepath.Join(e.tunesDir(s), ref)
		if _, err := os.Stat(filepath.Join(dir, tune.RecordFile)); err != nil {
			return "", inputerr.Errorf("no tune %q in %s; `sglaunch tune show` shows the newest", ref, e.tunesDir(s))
		}
		return dir, nil
	}
	names, _ := filepath.Glob(filepath.Join(e.tunesDir(s), "*", tune.RecordFile))
	if len(names) == 0 {
		return "", inputerr.Errorf("no tunes in %s yet; run sglaunch tune --profile BASE --space FILE", e.tunesDir(s))
	}
	slices.Sort(names)
	return filepath.Dir(names[len(names)-1]), nil
}

func (e *env) tune(c *cli.Context) error {
	s, err := e.settings(c)
	if err != nil {
		return err
	}
	if c.NArg() > 0 {
		return inputerr.Errorf("unexpected argument %q; sglaunch tune takes flags only", c.Args().First())
	}
	rec, err := e.tuneRecord(c, s)
	if err != nil {
		return err
	}
	shard, shards, err := parseShard(c)
	if err != nil {
		return err
	}
	if shards > 0 {
		if rec.Space.Strategy == tune.StrategyHalving {
			return inputerr.Errorf("--shard: halving relaunches points across stages and cannot be split into a job array; use grid, random or adaptive")
		}
		if rec, err = tune.LoadShard(rec.Dir(), shard); err != nil {
			return err
		}
	}
	prof, err := e.finder(s).Load(rec.Base)
	if err != nil {
		return err
	}
	fromProfile, err := workload.ProfileWorkloads(prof)
	if err != nil {
		return err
	}
	ws, err := workload.Select([]string{rec.Space.Objective.Workload}, fromProfile)
	if err != nil {
		return err
	}
	if err := workload.Prepare(ws); err != nil {
		return err
	}
	resolve := func(sets []string) (*plan.Plan, error) {
		return plan.Resolve(plan.Request{Profile: prof, Mode: plan.ModeBench, Config: s, Sets: sets,
			Environ: e.environ(), LookPath: e.lookPath, SimDir: e.simDir(c)})
	}
	base, err := resolve(nil)
	if err != nil {
		return err
	}
	if n := base.MultiNode.Nodes; n > 1 {
		return inputerr.Errorf("profile %s spans %d nodes (multinode.nodes) and tune starts servers on this host only", base.Profile, n)
	}
	// Every point's plan is checked before any launch: a bad value in the
	// space is an input error now, not a failed point an hour in.
	for _, p := range rec.Space.Params {
		for _, v := range p.Values {
			if _, err := resolve([]string{p.Key + "=" + v}); err != nil {
				return inputerr.Errorf("%s: parameters.%s: %s: %w", rec.Space.File, p.Key, v, err)
			}
		}
	}
	if err := needsLinux("sglaunch tune"); err != nil && !c.Bool("slurm") {
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
	recordsDir := bench.RecordsDir(statedir.State(s.StateDir, e.getenv))
	if rec.Shared {
		recordsDir = rec.RecordsDir()
	}
	store, err := bench.OpenStore(recordsDir)
	if err != nil {
		return err
	}

	ctx := context.WithoutCancel(c.Context)
	host := bench.HostFacts(ctx, e.probes, e.lookPath)
	argv := redact.CommandLine(e.args)
	cfg := tune.Config{
		Resolve: resolve, Workload: ws[0], Store: store,
		NewBenchRecord: func() *bench.Record {
			r := bench.NewRecord(time.Now())
			r.Argv, r.Sglaunch, r.Host = argv, version.String(), host
			return r
		},
		Progress: e.stderr, Log: log, Probes: e.probes,
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
	}
	cfg.Shard, cfg.Shards = shard, shards
	log.Info(fmt.Sprintf("tune %s: %s; record %s", rec.ID, rec.Space.Describe(), rec.Path()))
	// One launch for the whole search (the sweep, preflight of the base
	// plan, the runtime state), whose starter launches each point's
	// server in turn. The supervisor's lines for every point would bury
	// the progress: only its warnings and errors are shown.
	quiet := slog.New(levelHandler{Handler: log.Handler(), min: slog.LevelWarn})
	spec := e.launchSpec(c, base, s, quiet)
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

// tuneRecord starts a tune from the flags, or loads the one --resume names.
func (e *env) tuneRecord(c *cli.Context, s plan.Config) (*tune.Record, error) {
	if ref := c.String("resume"); ref != "" {
		for _, f := range []string{"space", "profile", "strategy", "rounds", "dir", "slurm"} {
			if c.IsSet(f) {
				return nil, inputerr.Errorf("--%s cannot change a tune that is resumed; --resume takes the tune's own (only --budget may be given again)", f)
			}
		}
		dir, err := e.tuneDir(s, ref)
		if err != nil {
			return nil, err
		}
		rec, err := tune.Load(dir)
		if err != nil {
			return nil, err
		}
		if c.IsSet("budget") {
			rec.Space.Budget = c.Duration("budget")
		}
		rec.Status, rec.Note, rec.Verdict = tune.TuneRunning, "", nil
		return rec, nil
	}
	ref := c.String("profile")
	if ref == "" {
		ref = s.Profile
	}
	if ref == "" {
		return nil, inputerr.Errorf("no profile given; use --profile BASE (or set SGLAUNCH_PROFILE)")
	}
	prof, err := e.finder(s).Load(ref)
	if err != nil {
		return nil, err
	}
	var space *tune.Space
	switch {
	case c.IsSet("space"):
		space, err = tune.LoadSpace(c.String("space"))
	case prof.Tune != nil:
		space, err = tune.DecodeSpace(prof.TuneFile, prof.Tune)
	default:
		return nil, inputerr.Errorf("no search space: profile %s has no tune: section; give --space FILE (parameters:, objective:), or --resume DIR|ID", prof.Name)
	}
	if err != nil {
		return nil, err
	}
	if c.IsSet("strategy") {
		st := c.String("strategy")
		if !slices.Contains(tune.Strategies, st) {
			return nil, inputerr.Errorf("--strategy %q: want one of %s", st, strings.Join(tune.Strategies, ", "))
		}
		if st == tune.StrategyRandom && space.Count == 0 {
			return nil, inputerr.Errorf("--strategy random needs count: in the space (how many points to draw)")
		}
		space.Strategy = st
	}
	if c.IsSet("budget") {
		if space.Budget = c.Duration("budget"); space.Budget <= 0 {
			return nil, inputerr.Errorf("--budget %s: want a positive duration like 90m", c.Duration("budget"))
		}
	}
	if c.IsSet("rounds") {
		if space.Rounds = c.Int("rounds"); space.Rounds < 1 {
			return nil, inputerr.Errorf("--rounds %d: want 1 or more", c.Int("rounds"))
		}
	}
	if profiles.IsPath(ref) {
		if abs, err := filepath.Abs(ref); err == nil {
			ref = abs
		}
	}
	now := time.Now()
	dir := c.String("dir")
	if dir == "" {
		dir = filepath.Join(e.tunesDir(s), tune.NewID(now))
	}
	if _, err := os.Stat(filepath.Join(dir, tune.RecordFile)); err == nil {
		return nil, inputerr.Errorf("--dir %s holds a tune already; resume it with --resume %s, or pick another directory", dir, dir)
	}
	if c.IsSet("shard") {
		return nil, inputerr.Errorf("--shard goes with --resume DIR: a task of a job array measures a share of a tune --slurm planned")
	}
	if c.Bool("slurm") {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		dir = abs
	}
	rec := tune.NewRecord(dir, now)
	rec.Shared = c.Bool("slurm")
	rec.Base, rec.BaseName, rec.Space, rec.Strategy, rec.Argv = ref, prof.Name, *space, space.Strategy, redact.CommandLine(e.args)
	return rec, nil
}

// levelHandler passes only records at min or above.
type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}

// parseShard reads --shard K/N.
func parseShard(c *cli.Context) (int, int, error) {
	v := c.String("shard")
	if v == "" {
		return 0, 0, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(v, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n || fmt.Sprintf("%d/%d", k, n) != v {
		return 0, 0, inputerr.Errorf("--shard %q: want K/N with 0 <= K < N, like 2/8", v)
	}
	return k, n, nil
}

// tuneArray plans the tune and prints the job array that measures it.
func (e *env) tuneArray(c *cli.Context, cfg tune.Config, rec *tune.Record, log *slog.Logger) error {
	if rec.Space.Strategy == tune.StrategyHalving {
		return inputerr.Errorf("--slurm: halving relaunches points across stages and cannot be split into a job array; use grid, random or adaptive")
	}
	exe, err := selfexe.Path("tune")
	if err != nil {
		return err
	}
	if err := tune.Prepare(cfg, rec); err != nil {
		return err
	}
	argv := []string{exe, "tune", "--resume", rec.Dir()}
	if c.Bool("skip-preflight") {
		argv = append(argv, "--skip-preflight")
	}
	name := "sglaunch-tune-" + rec.BaseName
	script, err := cluster.SbatchArrayScript(cluster.ArrayOptions{
		JobName: name, Partition: c.String("partition"), Time: c.String("time"), Account: c.String("account"),
		Output: c.String("job-output"), GPUsPerNode: c.Int("gpus-per-node"), Tasks: c.Int("tasks"),
		Comment: []string{
			fmt.Sprintf("generated by sglaunch %s: tune %s of profile %s, %d points.", version.String(), rec.ID, rec.Base, len(rec.Points)),
			"Each task measures its share of the points on a node of its own, into",
			rec.Dir() + " (shared by every node, as the profile and this binary must be).",
			"When the array is done, collect and judge: sglaunch tune --resume " + rec.Dir(),
		},
		Argv: argv, TaskFlag: "--shard",
	})
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("tune %s planned (%d points) in %s; submit the job array with sbatch, then run: sglaunch tune --resume %s", rec.ID, len(rec.Points), rec.Dir(), rec.Dir()))
	_, err = fmt.Fprint(e.stdout, script)
	return err
}
