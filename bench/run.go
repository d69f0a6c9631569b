package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
	"github.com/sglaunch/sglaunch/loadgen"
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
func (r *Runner) Run(ctx context.Context, rec *Record, workloads []Workload) error {
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
		res := WorkloadResult{Workload: w, Started: timeNow().UTC()}
		var err error
		if w.External() {
			data := TemplateData{URL: r.Target.URL, Model: model, Python: r.Target.Python, Profile: r.Target.Profile, Fingerprint: r.Target.Fingerprint}
			data.Host, data.Port = hostPort(r.Target.URL)
			res.External, err = runExternal(ctx, w, data, r.commandEnv(), r.Output)
		} else {
			err = r.runLoad(ctx, client, model, w, &res)
		}
		res.Ended = timeNow().UTC()
		res.Status = StatusOK
		if err != nil {
			res.Status, res.Error = StatusFailed, err.Error()
		}
		rec.Results = append(rec.Results, res)
		if err != nil {
			for _, rest := range workloads[i+1:] {
				rec.Results = append(rec.Results, WorkloadResult{Workload: rest, Status: StatusSkipped})
			}
			return fmt.Errorf("workload %s: %w", w.Name, err)
		}
	}
	return nil
}

func (r *Runner) runLoad(ctx context.Context, client *loadgen.Client, model string, w Workload, res *WorkloadResult) error {
	prog := loadgen.NewProgress(r.Progress)
	if r.Progress == nil {
		prog = nil
	} else {
		prog.Prefix = w.Name
	}
	if err := w.prepare(); err != nil {
		return err
	}
	for _, lvl := range w.Levels() {
		var obs loadgen.Observer
		if prog != nil {
			obs = prog
		}
		rec, err := r.runLevel(ctx, client, model, w, lvl, obs)
		if rec != nil {
			res.Levels = append(res.Levels, *rec)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", lvl, err)
		}
	}
	return nil
}

// commandEnv is the environment of command workloads: the plan's, with
// OPENAI_API_KEY set for the server's API key as bench_serving reads it.
func (r *Runner) commandEnv() []string {
	env := append([]string(nil), r.Target.Environ...)
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
