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
// resolved first (Resolve); for a systemd unit whose ExecStart pins
// another interpreter, the report says so.
func (d *Deployment) Judge(ctx context.Context, exp Expected) *Report {
	exp = Resolve(ctx, exp)
	r := Compare(exp, d.Observed)
	if note := d.unitPythonNote(exp); note != "" {
		r.Notes = append(r.Notes, note)
	}
	return r
}
