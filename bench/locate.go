package bench

import (
	"context"
	"fmt"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/verify"
)

// Locator finds the server behind a URL run on this host, as verify
// does: its process, and the plan of the sglaunch launch that runs it,
// from the launch's runtime state in runtimeDir. It is RunSpec.Locate.
func Locator(runtimeDir string) func(ctx context.Context, url string) *Located {
	return func(ctx context.Context, url string) *Located {
		loc, err := verify.Locate(ctx, verify.Target{URL: url, RuntimeDir: runtimeDir})
		if err != nil || loc.ServerPID == 0 {
			return nil
		}
		out := &Located{Observed: Observed{ServerPID: loc.ServerPID, How: loc.How}}
		if argv, err := loc.Argv(); err == nil {
			out.Argv = redact.Argv(argv)
		}
		if st := loc.State; st != nil && !st.Stale {
			view := st.Plan
			out.Plan, out.Profile = &view, st.Profile
			out.PlanNote = fmt.Sprintf("from the runtime state of the sglaunch launch (pid %d) that runs the server; `sglaunch verify --url %s` proves the server runs it", st.SglaunchPID, url)
		}
		return out
	}
}
