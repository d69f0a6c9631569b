package cluster

import (
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// ArrayOptions is a job array of Tasks single-node tasks, each running
// Argv with TaskFlag set to "TASK/TASKS" (its index in the array and
// their number).
type ArrayOptions struct {
	JobName   string
	Partition string
	Time      string
	Account   string
	Output    string
	// GPUsPerNode asks for GPUs (0: none asked).
	GPUsPerNode int
	Tasks       int
	// Comment is the script's opening comment, one line a string.
	Comment  []string
	Argv     []string
	TaskFlag string
}

// SbatchArrayScript renders a batch script for a job array: each task
// gets a node of its own (--exclusive) and runs Argv with its share.
func SbatchArrayScript(o ArrayOptions) (string, error) {
	if o.Tasks < 1 {
		return "", inputerr.Errorf("a job array needs at least one task, got %d", o.Tasks)
	}
	type directive struct{ opt, value string }
	ds := []directive{{"--job-name", o.JobName}, {"--array", fmt.Sprintf("0-%d", o.Tasks-1)}, {"--nodes", "1"}, {"--ntasks", "1"}}
	if o.GPUsPerNode > 0 {
		ds = append(ds, directive{"--gpus-per-node", fmt.Sprint(o.GPUsPerNode)})
	}
	for _, d := range []directive{{"--partition", o.Partition}, {"--time", o.Time}, {"--account", o.Account}, {"--output", o.Output}} {
		if d.value != "" {
			ds = append(ds, d)
		}
	}
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	b.WriteString(header(o.Comment...))
	for _, d := range ds {
		v, err := sbatchValue(d.opt, d.value)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "#SBATCH %s=%s\n", d.opt, v)
	}
	b.WriteString("#SBATCH --exclusive\n")
	b.WriteString("unset SGLAUNCH_SET SGLAUNCH_HOST SGLAUNCH_PORT\n")
	var words []string
	for _, a := range o.Argv {
		words = append(words, shellQuote(a))
	}
	fmt.Fprintf(&b, "exec %s %s \"${SLURM_ARRAY_TASK_ID}/%d\"\n", strings.Join(words, " "), o.TaskFlag, o.Tasks)
	return b.String(), nil
}
