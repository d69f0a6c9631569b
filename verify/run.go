package verify

import (
	"context"
	"fmt"
)

// Run locates the deployment, checks that it is ready, observes it and
// compares it with exp.
func Run(ctx context.Context, exp Expected, t Target) (*Report, error) {
	l, err := Locate(ctx, t)
	if err != nil {
		return nil, err
	}
	if err := CheckReady(ctx, l); err != nil {
		return nil, err
	}
	o, err := Observe(ctx, l.ServerPID, l.URL, exp.Managed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.How, err)
	}
	return Compare(exp, o), nil
}
