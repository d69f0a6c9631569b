package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/logfile"
	"github.com/sglaunch/sglaunch/plan"
)

// Running is a started server as the bench life cycle watches it: the
// supervise session satisfies it.
type Running interface {
	Ready() health.Load
	ServerPID() int
	Done() <-chan struct{}
	Err() error
	Supervise(ctx context.Context) error
}

// Server is a server the bench life cycle launched (package launch
// starts it and hands it over); Stop says how it ended.
type Server interface {
	Running
	Stop(ctx context.Context) (fmt.Stringer, error)
}

// LaunchFunc starts the plan's server as serve does and returns once it is
// ready; its output goes to out.
type LaunchFunc func(ctx context.Context, p *plan.Plan, out io.Writer) (Server, error)

// RunSpec is one benchmark run: what to measure, with what, and where the
// record goes.
type RunSpec struct {
	// Plan is the plan to launch; nil measures the server at URL.
	Plan *plan.Plan
	// URL is the running server to measure when Plan is nil.
	URL string
	// URLKey is the bearer token for URL given from outside
	// (OPENAI_API_KEY); a server Locate finds on this host is asked with
	// the key Locate chose (Located.APIKey).
	URLKey string
	// Python (default python3) and Environ run command workloads of a
	// URL run.
	Python  string
	Environ []string
	// Profile names where the workloads came from, for a URL run.
	Profile   string
	Workloads []workload.Workload
	Store     *Store
	// Probes remembers the interpreter probe preflight already ran.
	Probes *hostprobe.Memo
	// Launch starts the plan's server (required with Plan).
	Launch LaunchFunc
	// Locate finds, for a URL run, the server on this host and the plan
	// sglaunch runs it with (verify.Locate); nil: not looked for.
	Locate func(ctx context.Context, url string) *Located
	// LaunchID marks the run's command workloads (plan.LaunchIDVar) and
	// names their scratch directories, so that what they leave after a
	// kill -9 of sglaunch is found again; the launched server gets it
	// through Launch.
	LaunchID string
	// Record is the record to fill (NewRecord, with argv, versions and
	// host facts set by the caller).
	Record *Record
	// MaxFailures is how many failed requests the run may have and still
	// succeed (default none); the record says partial either way.
	MaxFailures FailureBudget
	// KeepRunning leaves the launched server running, supervised, after
	// the results are out, until a signal stops it.
	KeepRunning bool
	// ServerOutput also shows the server's output on Progress.
	ServerOutput bool
	// Details writes one line per request into a file beside the record.
	Details bool
	// Progress receives the generator's progress and command output.
	Progress io.Writer
	// Report prints the results once they are final (or, with
	// KeepRunning, before the server is left running).
	Report func(rec *Record, path string) error
	Log    *slog.Logger
	// AfterRound, when set, may end a level's rounds early (Runner.AfterRound).
	AfterRound func(workload string, l LevelRecord) bool
}

// Located is what a URL run learns about the server on this host.
type Located struct {
	Observed
	// Plan is the plan of the sglaunch launch that runs the server (nil
	// when none does), Profile its profile, PlanNote where it came from.
	Plan     *plan.View
	Profile  string
	PlanNote string
	// APIKey is the bearer token the run's requests carry (verify.APIKey).
	APIKey string
}

// Interrupted is the error Run returns when a signal cut the run short;
// Signal is the first signal.
type Interrupted struct{ Signal syscall.Signal }

func (e *Interrupted) Error() string {
	return "benchmark interrupted by " + e.Signal.String() + "; the record keeps what completed"
}

// Run runs one benchmark from start to end: it launches the plan's server
// (or reaches the one at URL), runs the workloads, stops the server and
// saves the record, which it returns together with why the run failed.
// The first signal on sigs ends the run and the server with it; a second
// one cuts the server's grace period short. Only a signal (or ctx) stops
// a run.
func Run(ctx context.Context, spec RunSpec, sigs <-chan os.Signal) (*Record, error) {
	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	stopCtx, cancelStop := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelStop()
	var mu sync.Mutex
	var first syscall.Signal
	go func() {
		n := 0
		for {
			select {
			case <-stopCtx.Done():
				return
			case sig := <-sigs:
				if n++; n > 1 {
					cancelStop()
					continue
				}
				if ss, ok := sig.(syscall.Signal); ok {
					mu.Lock()
					first = ss
					mu.Unlock()
				}
				cancelRun(fmt.Errorf("interrupted by %v", sig))
			}
		}
	}()
	r := &run{spec: spec, rec: spec.Record, runCtx: runCtx, cancelRun: cancelRun, stopCtx: stopCtx}
	var err error
	if spec.Plan == nil {
		err = r.runURL()
	} else {
		err = r.runLaunched()
	}
	if err == nil {
		err = spec.MaxFailures.check(r.rec)
	}
	if rerr := r.report(); rerr != nil && err == nil {
		err = rerr
	}
	mu.Lock()
	sig := first
	mu.Unlock()
	if err != nil && sig != 0 {
		return r.rec, &Interrupted{Signal: sig}
	}
	return r.rec, err
}

// run is one benchmark run in progress.
type run struct {
	spec      RunSpec
	rec       *Record
	runCtx    context.Context
	cancelRun context.CancelCauseFunc
	stopCtx   context.Context
	saved     string
	reported  bool
	// checkpointFailed: a checkpoint could not be saved (said once).
	checkpointFailed bool
	// serverLog is the launched server's log, which a full disk may cut.
	serverLog *logfile.Writer
}

// runURL measures a server sglaunch did not start.
func (r *run) runURL() error {
	rec, s := r.rec, r.spec
	rec.URL = s.URL
	rec.PlanNote = "unknown: benchmarked an already running server (--url)"
	key := s.URLKey
	if s.Locate != nil {
		if l := s.Locate(r.runCtx, s.URL); l != nil {
			key = l.APIKey
			rec.Observed = &l.Observed
			if l.Plan != nil {
				rec.Plan, rec.Profile, rec.Fingerprint = l.Plan, l.Profile, l.Plan.Fingerprint
				rec.PlanNote = l.PlanNote
			}
		}
	}
	if s.Profile != "" && rec.Plan == nil {
		rec.PlanNote += "; workloads from profile " + s.Profile
	}
	python := s.Python
	if python == "" {
		python = "python3"
	}
	runner := r.runner(Target{URL: s.URL, APIKey: key, Python: python, Environ: s.Environ, LaunchID: s.LaunchID})
	if err := runner.Check(r.runCtx); err != nil {
		// Nothing was measured: a record would only crowd bench list
		// with a failed run of no server (issue 24). The error says why.
		r.reported = true
		return r.withCause(err)
	}
	r.checkpoint()
	rec.SGLang, rec.SGLangFrom = ServerVersion(r.runCtx, s.URL, key)
	return r.finish(r.withCause(runner.Run(r.runCtx, rec, s.Workloads)))
}

// runLaunched launches the plan's server as serve does, measures it and
// stops it.
func (r *run) runLaunched() error {
	p, rec := r.spec.Plan, r.rec
	view := p.View()
	rec.Plan, rec.Profile, rec.Fingerprint, rec.URL, rec.Launched = &view, p.Profile, p.Fingerprint, p.BaseURL(), true
	if v, err := SGLangVersion(r.runCtx, r.spec.Probes, p); err != nil {
		rec.SGLangFrom = "unknown: " + err.Error()
	} else if v == "" {
		rec.SGLangFrom = "not installed for " + p.Python
	} else {
		rec.SGLang, rec.SGLangFrom = v, "importlib.metadata via "+p.Python
	}

	// The server's output goes to a log beside the record, so that the
	// progress and the results stay readable.
	store := r.spec.Store
	logPath := store.LogPath(rec)
	rec.Server = &ServerStart{Log: logPath}
	if err := os.MkdirAll(store.Dir, DirMode); err != nil {
		return r.finish(fmt.Errorf("records directory: %w", err))
	}
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, FileMode)
	if err != nil {
		return r.finish(fmt.Errorf("server log: %w", err))
	}
	defer logFile.Close()
	r.checkpoint()
	r.serverLog = logfile.New(logFile, logPath, func(msg string) { r.spec.Log.Warn(msg) })
	out := &lockedWriter{w: r.serverLog}
	if r.spec.ServerOutput {
		out.also = r.spec.Progress
	}
	srv, err := r.spec.Launch(r.runCtx, p, out)
	if err != nil {
		return r.finish(r.withCause(fmt.Errorf("launch: %w", err)))
	}
	s := rec.Server
	s.PID, s.Load = srv.ServerPID(), srv.Ready()
	s.StartedAt, s.ReadyAt = s.StartedAt.UTC(), s.ReadyAt.UTC()
	r.checkpoint()

	// A server that ends during the run fails it at once.
	runDone := make(chan struct{})
	go func() {
		select {
		case <-srv.Done():
			r.cancelRun(errors.New(serverEnded(srv)))
		case <-runDone:
		}
	}()
	runner := r.runner(Target{URL: p.BaseURL(), APIKey: p.APIKey(), Python: p.Python, Environ: p.Environ,
		Profile: p.Profile, Fingerprint: p.Fingerprint, LaunchID: r.spec.LaunchID})
	runErr := r.withCause(runner.Run(r.runCtx, rec, r.spec.Workloads))
	close(runDone)
	if runErr != nil && context.Cause(r.runCtx) == nil {
		// Failed requests often come a moment before the server's exit
		// is seen: say so when that is why.
		select {
		case <-srv.Done():
			runErr = fmt.Errorf("%w; %s", runErr, serverEnded(srv))
		case <-time.After(serverEndGrace):
		}
	}

	if r.spec.KeepRunning && r.runCtx.Err() == nil {
		// Results first: the server may run for hours yet.
		r.finish(runErr)
		if err := r.report(); err != nil {
			return err
		}
		r.spec.Log.Info(fmt.Sprintf("server kept running at %s (pid %d); Ctrl-C or SIGTERM stops it", p.BaseURL(), srv.ServerPID()))
		supervised := make(chan error, 1)
		go func() { supervised <- srv.Supervise(r.runCtx) }()
		select {
		case <-supervised:
		case <-r.runCtx.Done():
		}
	}
	status, stopErr := srv.Stop(r.stopCtx)
	s.Stop = stopText(status, stopErr)
	return r.finish(runErr)
}

// stopText says how the server ended when sglaunch stopped it. A server
// that drained and ended by itself ended well, whatever its status: SGLang
// SIGKILLs its own tree after the drain, so a clean stop reads 137, which
// alone looked like a kill (issue 24).
func stopText(status fmt.Stringer, stopErr error) string {
	switch {
	case errors.Is(stopErr, ErrStopKilled):
		return "stopped by sglaunch: it did not stop within stop_timeout and was killed (" + status.String() + ")"
	case stopErr != nil:
		return "stopped by sglaunch: " + status.String() + " (" + stopErr.Error() + ")"
	case status.String() == "exit status 0":
		return "stopped by sglaunch: drained and ended by itself (exit status 0)"
	}
	return "stopped by sglaunch: drained and ended by itself (" + status.String() + ", SGLang's own end of its process tree)"
}

// serverEnded says how the server ended, once it is done.
func serverEnded(srv Server) string {
	if err := srv.Err(); err != nil {
		line, _, _ := strings.Cut(err.Error(), "\n")
		return "the server ended mid-run: " + line
	}
	return "the server ended mid-run with exit status 0"
}

// serverEndGrace is how long a failed run waits to see whether the
// server has ended, to say so.
const serverEndGrace = 2 * time.Second

// withCause adds why the run was cut short (a signal, the server's end)
// to an error that does not say it yet.
func (r *run) withCause(err error) error {
	cause := context.Cause(r.runCtx)
	if err == nil || cause == nil || strings.Contains(err.Error(), cause.Error()) {
		return err
	}
	return fmt.Errorf("%w (%v)", err, cause)
}

func (r *run) runner(t Target) *Runner {
	rn := &Runner{Target: t, Progress: r.spec.Progress, Output: r.spec.Progress, Checkpoint: r.checkpoint, AfterRound: r.spec.AfterRound}
	if r.spec.Details {
		rn.DetailsPath = r.spec.Store.DetailsPath(r.rec)
	}
	return rn
}

// checkpoint saves the record of the run in progress (status
// interrupted): a kill -9 of sglaunch then loses no finished level. The
// file is replaced atomically each time, so it is never half written.
func (r *run) checkpoint() {
	r.rec.Checkpoint()
	path, err := r.spec.Store.Save(r.rec)
	if err != nil {
		if !r.checkpointFailed {
			r.checkpointFailed = true
			r.spec.Log.Warn("cannot save the record as the run goes (" + err.Error() + "); it is saved at the end")
		}
		return
	}
	r.saved = path
}

// finish closes and saves the record; saving again later replaces it. A
// save error is the run's error, reported once by the caller, unless the
// run failed already: then it is logged here, or it would be lost.
func (r *run) finish(runErr error) error {
	r.rec.Finish(timeNow(), runErr)
	if r.serverLog != nil && r.rec.Server != nil {
		r.rec.Server.LogCut = r.serverLog.Cut()
	}
	path, err := r.spec.Store.Save(r.rec)
	if err != nil {
		r.saved = ""
		if runErr == nil {
			return err
		}
		r.spec.Log.Error(err.Error())
		return runErr
	}
	r.saved = path
	return runErr
}

// report hands the results to the caller's printer, once.
func (r *run) report() error {
	if r.reported || r.spec.Report == nil {
		return nil
	}
	r.reported = true
	return r.spec.Report(r.rec, r.saved)
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
