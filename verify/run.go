package verify

import (
	"context"
	"fmt"

	"github.com/sglaunch/sglaunch/internal/proc"
)

// Run locates the deployment, checks that it is ready, observes it and
// compares it with exp.
func Run(ctx context.Context, exp Expected, t Target) (*Report, error) {
	l, err := Locate(ctx, t)
	if err != nil {
		return nil, err
	}
	return runLocated(ctx, exp, t, l)
}

// runLocated checks, observes and compares a located deployment.
func runLocated(ctx context.Context, exp Expected, t Target, l *Located) (*Report, error) {
	l.APIKey = apiKeyFor(l, exp, t)
	if err := CheckReady(ctx, l); err != nil {
		return nil, err
	}
	if err := CheckPort(l); err != nil {
		return nil, err
	}
	o, err := Observe(ctx, l.ServerPID, l.URL, exp.Managed, l.APIKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.How, err)
	}
	return Compare(exp, o), nil
}

// apiKeyFor picks the bearer token for the server's API: the server's own
// --api-key when its command line can be read (what it enforces), else
// the expected plan's (a profile's; a record's is redacted), else the one
// given from outside.
func apiKeyFor(l *Located, exp Expected, t Target) string {
	if l.ServerPID > 0 {
		if argv, err := proc.Cmdline(l.ServerPID); err == nil {
			if k := argvAPIKey(argv); k != "" {
				return k
			}
		}
	}
	if !exp.Redacted {
		if k := argvAPIKey(exp.Argv); k != "" {
			return k
		}
	}
	return t.APIKey
}
