package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/verify"
)

// benchRun is one run: launch or reach the server, run the workloads,
// stop the server, keep the record.
type benchRun struct {
	e            *env
	b            *benchSetup
	rec          *bench.Record
	log          *slog.Logger
	runCtx       context.Context
	cancelRun    context.CancelCauseFunc
	stopCtx      context.Context
	keep         bool
	serverOutput bool
	asJSON       bool
	saved        string
	reported     bool
}

func (r *benchRun) run() error {
	if r.b.plan == nil {
		return r.runURL()
	}
	return r.runLaunched()
}

// runURL measures a server sglaunch did not start.
func (r *benchRun) runURL() error {
	rec := r.rec
	rec.URL = r.b.url
	rec.PlanNote = "unknown: benchmarked an already running server (--url)"
	r.observe()
	if r.b.profile != "" {
		rec.PlanNote += "; workloads from profile " + r.b.profile
	}
	python := r.b.settings.Python
	if python == "" {
		python = "python3"
	}
	key := r.e.getenv("OPENAI_API_KEY")
	runner := r.runner(bench.Target{URL: r.b.url, APIKey: key, Python: python, Environ: r.e.environ()})
	err := runner.Check(r.runCtx)
	if err == nil {
		rec.SGLang, rec.SGLangFrom = bench.ServerVersion(r.runCtx, r.b.url, key)
		err = runner.Run(r.runCtx, rec, r.b.workloads)
	}
	return r.finish(r.withCause(err))
}

// observe finds the server behind --url on this host, as verify does:
// its process, and the plan of the sglaunch launch that runs it, from the
// launch's runtime state.
func (r *benchRun) observe() {
	loc, err := verify.Locate(r.runCtx, verify.Target{URL: r.b.url, RuntimeDir: statedir.Runtime(r.b.settings.RuntimeDir, r.b.settings.StateDir, r.e.getenv)})
	if err != nil || loc.ServerPID == 0 {
		return
	}
	rec := r.rec
	rec.Observed = &bench.Observed{ServerPID: loc.ServerPID, How: loc.How}
	if argv, err := proc.Cmdline(loc.ServerPID); err == nil {
		rec.Observed.Argv = redact.Argv(argv)
	}
	if st := loc.State; st != nil && !st.Stale {
		view := st.Plan
		rec.Plan, rec.Profile, rec.Fingerprint = &view, st.Profile, st.Fingerprint
		rec.PlanNote = fmt.Sprintf("from the runtime state of the sglaunch launch (pid %d) that runs the server; `sglaunch verify --url %s` proves the server runs it", st.SglaunchPID, r.b.url)
	}
}

// runLaunched launches the plan's server as serve does, measures it and
// stops it.
func (r *benchRun) runLaunched() error {
	plan, rec := r.b.plan, r.rec
	view := plan.View()
	rec.Plan, rec.Profile, rec.Fingerprint, rec.URL, rec.Launched = &view, plan.Profile, plan.Fingerprint, plan.BaseURL(), true
	if v, err := bench.SGLangVersion(r.runCtx, r.e.probes, plan); err != nil {
		rec.SGLangFrom = "unknown: " + err.Error()
	} else if v == "" {
		rec.SGLangFrom = "not installed for " + plan.Python
	} else {
		rec.SGLang, rec.SGLangFrom = v, "importlib.metadata via "+plan.Python
	}

	// The server's output goes to a log beside the record, so that the
	// progress and the results stay readable.
	logPath := r.b.store.LogPath(rec)
	rec.Server = &bench.ServerStart{Log: logPath}
	if err := os.MkdirAll(r.b.store.Dir, 0o755); err != nil {
		return r.finish(fmt.Errorf("records directory: %w", err))
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return r.finish(fmt.Errorf("server log: %w", err))
	}
	defer logFile.Close()
	out := &lockedWriter{w: logFile}
	if r.serverOutput {
		out.also = r.e.stderr
	}
	rs := r.e.launchState(r.b.plan, r.b.settings, r.log)
	defer rs.remove()
	opts := launcher.RunOptions{
		Stdout: out, Stderr: out, Logger: r.log, LogFile: r.b.settings.LogFile,
		StateDir: statedir.State(r.b.settings.StateDir, r.e.getenv),
	}
	rs.hooks(&opts)
	sess, err := launcher.Launch(r.runCtx, plan, opts)
	if err != nil {
		return r.finish(r.withCause(fmt.Errorf("launch: %w", err)))
	}
	info := sess.Ready()
	s := rec.Server
	s.PID, s.StartedAt, s.ReadyAt, s.LoadTime = info.ServerPID, info.StartedAt.UTC(), info.ReadyAt.UTC(), info.LoadTime.Seconds()
	for _, p := range info.Phases {
		s.Phases = append(s.Phases, bench.Phase{Name: p.Name, At: p.At.Seconds()})
	}

	// A server that ends during the run fails it at once.
	runDone := make(chan struct{})
	go func() {
		select {
		case <-sess.Done():
			r.cancelRun(errors.New(serverEnded(sess)))
		case <-runDone:
		}
	}()
	runner := r.runner(bench.Target{URL: plan.BaseURL(), APIKey: apiKey(plan), Python: plan.Python, Environ: plan.Environ,
		Profile: plan.Profile, Fingerprint: plan.Fingerprint})
	runErr := r.withCause(runner.Run(r.runCtx, rec, r.b.workloads))
	close(runDone)
	if runErr != nil && context.Cause(r.runCtx) == nil {
		// Failed requests often come a moment before the server's exit
		// is seen: say so when that is why.
		select {
		case <-sess.Done():
			runErr = fmt.Errorf("%w; %s", runErr, serverEnded(sess))
		case <-time.After(serverEndGrace):
		}
	}

	if r.keep && r.runCtx.Err() == nil {
		// Results first: the server may run for hours yet.
		r.finish(runErr)
		if err := r.report(); err != nil {
			return err
		}
		r.log.Info(fmt.Sprintf("server kept running at %s (pid %d); Ctrl-C or SIGTERM stops it", plan.BaseURL(), info.ServerPID))
		supervised := make(chan error, 1)
		go func() { supervised <- sess.Supervise(r.runCtx) }()
		select {
		case <-supervised:
		case <-r.runCtx.Done():
		}
	}
	status, _ := sess.Stop(r.stopCtx)
	s.Stop = "stopped by sglaunch: " + status.String()
	return r.finish(runErr)
}

// serverEnded says how the server ended, once its session is done.
func serverEnded(sess *launcher.Session) string {
	if err := sess.Err(); err != nil {
		return "the server ended mid-run: " + firstLine(err.Error())
	}
	return "the server ended mid-run with exit status 0"
}

// serverEndGrace is how long a failed run waits to see whether the
// server has ended, to say so.
const serverEndGrace = 2 * time.Second

// withCause adds why the run was cut short (a signal, the server's end)
// to an error that does not say it yet.
func (r *benchRun) withCause(err error) error {
	cause := context.Cause(r.runCtx)
	if err == nil || cause == nil || strings.Contains(err.Error(), cause.Error()) {
		return err
	}
	return fmt.Errorf("%w (%v)", err, cause)
}

func (r *benchRun) runner(t bench.Target) *bench.Runner {
	return &bench.Runner{Target: t, Progress: r.e.stderr, Output: r.e.stderr}
}

// finish closes and saves the record; saving again later replaces it.
func (r *benchRun) finish(runErr error) error {
	r.rec.Finish(time.Now(), runErr)
	path, err := r.b.store.Save(r.rec)
	if err != nil {
		r.log.Error(err.Error())
		if runErr == nil {
			return err
		}
		return runErr
	}
	r.saved = path
	return runErr
}

// report prints the results and where the record is, once.
func (r *benchRun) report() error {
	if r.reported {
		return nil
	}
	r.reported = true
	if r.asJSON {
		if _, err := r.e.stdout.Write(r.rec.JSON()); err != nil {
			return err
		}
	} else if len(r.rec.Results) > 0 {
		if err := bench.WriteResults(r.e.stdout, r.rec); err != nil {
			return err
		}
	}
	if r.saved != "" {
		r.log.Info(fmt.Sprintf("record %s (%s) saved to %s", r.rec.ID, r.rec.Status, r.saved))
	}
	return nil
}

// lockedWriter serialises the server's two output streams into one log,
// and copies them to also when set.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	also io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.also != nil {
		_, _ = l.also.Write(p)
	}
	return l.w.Write(p)
}
