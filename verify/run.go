package verify

import (
	"context"
)

// Run reads the deployment t names and judges it against exp.
func Run(ctx context.Context, exp Expected, t Target) (*Report, error) {
	d, err := Read(ctx, t, &exp)
	if err != nil {
		return nil, err
	}
	return d.Judge(ctx, exp), nil
}

// Judge compares what this host observed with exp, its interpreter
// resolved first (Resolve); for a systemd unit and a plan that names
// python by a bare name, the interpreter the unit pins (withUnitPython).
func (d *Deployment) Judge(ctx context.Context, exp Expected) *Report {
	exp, note := d.withUnitPython(exp)
	r := Compare(Resolve(ctx, exp), d.Observed)
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	return r
}
