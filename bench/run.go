package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/plan"
)

// timeNow is the clock records are stamped with; tests replace it.
var timeNow = time.Now

// Target is the server a run measures, and what command workloads get.
type Target struct {
	URL    string
	APIKey string // sent as a bearer token when the server has --api-key
	// Python and Environ run command workloads: the plan's interpreter and
	// environment (sglaunch's own without a plan).
	Python      string
	Environ     []string
	Profile     string
	Fingerprint string
	// LaunchID marks command workloads as the launch's (plan.LaunchIDVar).
	LaunchID string
}

// Runner runs workloads against one server.
type Runner struct {
	Target Target
	// Progress receives the generator's progress: a bar on a terminal,
	// plain lines otherwise.
	Progress io.Writer
	// Output receives command workloads' output as it comes.
	Output io.Writer
	// DetailsPath, when set, receives one JSON line per measured request
	// (bench --details); the record names it.
	DetailsPath string
	// Checkpoint, when set, is called as each workload starts and ends
	// and after each level, with the record as it stands (the bench life cycle saves
	// it, so that a killed run keeps what completed).
	Checkpoint func()
	// AfterRound, when set, is called after each round of a level but the
	// last, with the level as it stands; false ends the level's rounds
	// there, as if it had no more (tune's racing).
	AfterRound func(workload string, l LevelRecord) bool

	details *detailsFile
}

// checkTimeout bounds the reachability probe: above SGLang's 20 s health
// generation timeout.
const checkTimeout = 30 * time.Second

// Check probes the server's /health, for a server sglaunch did not start.
func (r *Runner) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	c := sglangapi.New(r.Target.URL, sglangapi.Options{APIKey: r.Target.APIKey, HealthTimeout: checkTimeout})
	defer c.Close()
	if err := c.Health(ctx); err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			return fmt.Errorf("cannot reach the server at %s: %w", r.Target.URL, err)
		}
		return fmt.Errorf("the server at %s is not ready: %w", r.Target.URL, err)
	}
	return nil
}

// Run runs the workloads in order, appending each one's result to rec.
// The first workload that fails ends the run: the rest are recorded as
// skipped, and the error says which failed and why.
func (r *Runner) Run(ctx context.Context, rec *Record, workloads []workload.Workload) error {
	maxConns := 1
	for _, w := range workloads {
		for _, l := range w.Levels() {
			maxConns = max(maxConns, l.Concurrency)
		}
	}
	client := loadgen.NewClient(r.Target.URL, r.Target.APIKey, maxConns)
	defer client.Close()
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	model, _ := client.Model(mctx) // only chat requests and templates need it
	cancel()
	rec.Speculative = speculativeSettings(ctx, client)
	if r.DetailsPath != "" {
		d, err := openDetails(r.DetailsPath)
		if err != nil {
			return err
		}
		r.details, rec.Details = d, filepath.Base(r.DetailsPath)
		defer d.close()
	}

	for i, w := range workloads {
		// The result is in the record from the start, so that every
		// checkpoint shows the levels done so far.
		rec.Results = append(rec.Results, WorkloadResult{Workload: w, Status: StatusInterrupted, Started: timeNow().UTC()})
		res := &rec.Results[len(rec.Results)-1]
		r.checkpoint()
		var err error
		if w.External() {
			data := workload.TemplateData{URL: r.Target.URL, Model: model, Python: r.Target.Python, Profile: r.Target.Profile, Fingerprint: r.Target.Fingerprint}
			data.Host, data.Port = hostPort(r.Target.URL)
			res.External, err = runExternal(ctx, w, data, r.commandEnv(), r.Target.LaunchID, r.Output)
		} else {
			err = r.runLoad(ctx, client, model, w, res)
		}
		res.Ended = timeNow().UTC()
		res.Status = StatusOK
		for _, l := range res.Levels {
			if l.Status == StatusPartial {
				res.Status = StatusPartial
			}
		}
		if err != nil {
			res.Status, res.Error = StatusFailed, err.Error()
		}
		if err != nil {
			for _, rest := range workloads[i+1:] {
				rec.Results = append(rec.Results, WorkloadResult{Workload: rest, Status: StatusSkipped})
			}
			r.checkpoint()
			return fmt.Errorf("workload %s: %w", w.Name, err)
		}
		r.checkpoint()
	}
	return nil
}

func (r *Runner) checkpoint() {
	if r.Checkpoint != nil {
		r.Checkpoint()
	}
}

func (r *Runner) runLoad(ctx context.Context, client *loadgen.Client, model string, w workload.Workload, res *WorkloadResult) error {
	var prog loadgen.Observer
	if r.Progress != nil {
		p := loadgen.NewProgress(r.Progress)
		p.Prefix = w.Name
		prog = p
	}
	if err := w.Prepare(); err != nil {
		return err
	}
	for _, lvl := range w.Levels() {
		if err := r.runLevel(ctx, client, model, w, lvl, prog, res); err != nil {
			return fmt.Errorf("%s: %w", lvl, err)
		}
	}
	return nil
}

// levelStatus is ok when every request completed, partial when some
// failed, failed when the level ended with an error.
func levelStatus(lr loadgen.LevelResult, err error) string {
	switch {
	case err != nil || lr.Metrics.Completed == 0:
		return StatusFailed
	case lr.Metrics.Failed > 0:
		return StatusPartial
	}
	return StatusOK
}

// recordLevel hands a level's result to done as soon as it ends, then
// to the next observer (the progress display).
type recordLevel struct {
	next  loadgen.Observer
	done  func(loadgen.LevelResult)
	ended bool
}

func (o *recordLevel) LevelStart(c *loadgen.Counters) {
	if o.next != nil {
		o.next.LevelStart(c)
	}
}

func (o *recordLevel) LevelEnd(c *loadgen.Counters, lr loadgen.LevelResult) {
	o.ended = true
	o.done(lr)
	if o.next != nil {
		o.next.LevelEnd(c, lr)
	}
}

// commandEnv is the environment of command workloads: the plan's, with
// the launch id, and OPENAI_API_KEY set for the server's API key as
// bench_serving reads it.
func (r *Runner) commandEnv() []string {
	env := append([]string(nil), r.Target.Environ...)
	if r.Target.LaunchID != "" {
		env = append(env, plan.LaunchIDVar+"="+r.Target.LaunchID)
	}
	if r.Target.APIKey == "" {
		return env
	}
	for _, kv := range env {
		if len(kv) > 15 && kv[:15] == "OPENAI_API_KEY=" {
			return env
		}
	}
	return append(env, "OPENAI_API_KEY="+r.Target.APIKey)
}

// acceptLength reads the server's average speculative accept length, as
// bench_serving does after its run; 0 when the server has none.
func acceptLength(ctx context.Context, c *loadgen.Client) float64 {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	info, _, err := c.API().ServerInfo(ctx)
	if err != nil {
		return 0
	}
	states, _ := info["internal_states"].([]any)
	if len(states) == 0 {
		return 0
	}
	first, _ := states[0].(map[string]any)
	v, _ := first["avg_spec_accept_length"].(float64)
	return v
}
