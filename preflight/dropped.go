package preflight

import "github.com/sglaunch/sglaunch/plan"

// checkDropped warns about each drop from sglaunch's own environment that
// changes which GPUs the server uses (a Slurm job's CUDA_VISIBLE_DEVICES).
func checkDropped(p *plan.Plan) []Finding {
	var out []Finding
	for _, w := range p.DropWarnings() {
		out = append(out, subject{CheckTorch, w.Name, "sglaunch's own environment"}.warn(w.Reason, w.Fix))
	}
	return out
}
