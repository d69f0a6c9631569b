package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// client is exec.CommandContext for one of Slurm's clients (srun,
// sbatch, scontrol, sinfo) run from the root namespace against this
// cluster.
func (c *cluster) client(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = clientEnv(c.conf)
	cmd.Dir = c.dir
	cmd.WaitDelay = stopTimeout
	// A client (a waiting srun) dies with the test binary; what it forks
	// is found by its directory (sweep).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// run runs a client, bounded by commandTimeout, and returns its stdout;
// the error holds its stderr (and wraps the *exec.ExitError).
func (c *cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	out, err := c.client(ctx, name, args...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			stderr = ee.Stderr
		}
		return string(out), fmt.Errorf("%s %s: %w\nstderr:\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return string(out), nil
}

// srun runs `srun args...` from the root namespace and returns its
// stdout (the tasks' output, each line labelled when args has --label).
func (c *cluster) srun(ctx context.Context, args ...string) (string, error) {
	return c.run(ctx, "srun", args...)
}

// sbatch submits script (its #SBATCH lines included) and returns the
// job's id. The job's output goes to jobOutput(id).
func (c *cluster) sbatch(ctx context.Context, script string) (string, error) {
	return c.sbatchEnv(ctx, script, nil)
}

// sbatchEnv is sbatch with the submitter's environment env (nil: the
// clients' own), which the job exports.
func (c *cluster) sbatchEnv(ctx context.Context, script string, env []string) (string, error) {
	path := filepath.Join(c.dir, fmt.Sprintf("batch-%d.sh", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := c.client(ctx, "sbatch", "--parsable", "--chdir="+c.dir, "--output="+filepath.Join(c.dir, "job-%j.out"), path)
	if env != nil {
		cmd.Env = env
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			stderr = ee.Stderr
		}
		return "", fmt.Errorf("sbatch: %w\nstderr:\n%s", err, stderr)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // "ID" or "ID;cluster"
	return id, nil
}

// jobOutput is the output file of batch job id.
func (c *cluster) jobOutput(id string) string {
	return filepath.Join(c.dir, "job-"+id+".out")
}

// finalStates are the job states that end a job.
var finalStates = map[string]bool{
	"COMPLETED": true, "FAILED": true, "CANCELLED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "OUT_OF_MEMORY": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true,
}

// jobResult is how a batch job ended.
type jobResult struct {
	State    string // JobState: COMPLETED, FAILED, …
	ExitCode string // ExitCode, status:signal ("0:0")
	Output   string // its output file
}

// waitJob waits until batch job id has ended (bounded by jobTimeout) and
// returns how, with its output.
func (c *cluster) waitJob(ctx context.Context, id string) (jobResult, error) {
	ctx, cancel := context.WithTimeout(ctx, jobTimeout)
	defer cancel()
	var state string
	for {
		out, err := c.run(ctx, "scontrol", "-o", "show", "job", id)
		if err == nil {
			f := fields(out)
			state = f["JobState"]
			if finalStates[state] {
				data, err := os.ReadFile(c.jobOutput(id))
				return jobResult{State: state, ExitCode: f["ExitCode"], Output: string(data)}, err
			}
		}
		select {
		case <-ctx.Done():
			return jobResult{State: state}, fmt.Errorf("job %s has not ended within %v (last state %q)", id, jobTimeout, state)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// hostnames expands a hostlist (gpu[01-03]) as `scontrol show
// hostnames` does: one name a line.
func (c *cluster) hostnames(ctx context.Context, list string) ([]string, error) {
	out, err := c.run(ctx, "scontrol", "show", "hostnames", list)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// fields splits `scontrol -o show …`'s KEY=VALUE words.
func fields(line string) map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(line) {
		if k, v, ok := strings.Cut(w, "="); ok {
			m[k] = v
		}
	}
	return m
}
