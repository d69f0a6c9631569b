package plan

import (
	"fmt"
	"slices"
)

// deviceVars choose the GPUs the server runs on. A scheduler exports them
// (Slurm sets CUDA_VISIBLE_DEVICES to the job's allocation), and they are
// managed (CUDA_), so sglaunch drops them unless the profile says
// otherwise: the server then runs on GPUs it was not given.
var deviceVars = []string{"CUDA_VISIBLE_DEVICES"}

// DropWarning is a drop from sglaunch's own environment that changes
// which GPUs the server uses.
type DropWarning struct {
	Name   string
	Reason string
	Fix    string
}

func (w DropWarning) String() string { return w.Reason + "; " + w.Fix }

// DropWarnings lists the drops that change which GPUs the server uses:
// serve and bench print each on a line of its own and preflight warns. A
// variable the plan sets to the same value is not one.
func (p *Plan) DropWarnings() []DropWarning {
	var out []DropWarning
	for _, d := range p.Dropped {
		if !slices.Contains(deviceVars, d.Name) {
			continue
		}
		if !d.Replaced {
			out = append(out, DropWarning{Name: d.Name,
				Reason: fmt.Sprintf("%s=%s in sglaunch's own environment is dropped (%s variables come only from the profile): the server sees every GPU, not these", d.Name, d.Value, managedBy(p, d.Name)),
				Fix:    fmt.Sprintf("to keep it, add inherit_env: [%s] to the profile, or set it under env:", d.Name)})
			continue
		}
		if planned, ok := p.envValue(d.Name); ok && planned != d.Value {
			out = append(out, DropWarning{Name: d.Name,
				Reason: fmt.Sprintf("%s=%s in sglaunch's own environment is replaced by the plan's %s: the server runs on other GPUs than the environment gives", d.Name, d.Value, planned),
				Fix:    fmt.Sprintf("to use the environment's, remove env.%s from the profile and add inherit_env: [%s]", d.Name, d.Name)})
		}
	}
	return out
}

func (p *Plan) envValue(name string) (string, bool) {
	for _, e := range p.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// managedBy names the managed entry (a prefix like CUDA_, or the name
// itself) that covers name.
func managedBy(p *Plan, name string) string {
	for _, m := range p.Managed {
		if MatchManaged([]string{m}, name) {
			return m
		}
	}
	return name
}
