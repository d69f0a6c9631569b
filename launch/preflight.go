package launch

import (
	"context"
	"fmt"
	"os"

	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/preflight"
)

// runPreflight runs what comes before a model load: preflight, with its
// warnings and failures in full on stderr and its passes counted, or
// with Skip only its Python start-up check. Anything failed is an Exit
// with status 1.
func runPreflight(ctx context.Context, l *launch) error {
	s, p, log := l.spec, l.spec.Plan, l.spec.Log
	if s.Preflight.Skip {
		cwd, err := os.Getwd()
		if err != nil {
			cwd = "/"
		}
		f := preflight.SiteHooks(ctx, p, s.Preflight.AllowSiteOverrides, cwd)
		switch f.Status {
		case preflight.Warn:
			log.Warn(f.Reason)
		case preflight.Fail:
			return &Exit{Code: 1, Msg: f.Reason + "; " + f.Fix}
		}
		return nil
	}
	opts := s.Preflight.Options
	opts.AllowSiteOverrides = s.Preflight.AllowSiteOverrides
	rep := preflight.Run(ctx, p, opts)
	// In the journal each finding is a record at its own priority, so
	// that `journalctl -p warning` shows preflight's warnings too.
	if logging.IsJSON(log) || logging.IsJournal(s.Stderr) {
		rep.Log(log)
	} else if err := rep.WriteCompact(s.Stderr); err != nil {
		return err
	}
	if rep.Failed() {
		return &Exit{Code: 1, Msg: fmt.Sprintf("preflight: %d check(s) failed; fix them, or pass --skip-preflight to launch anyway", rep.Count(preflight.Fail))}
	}
	return nil
}
