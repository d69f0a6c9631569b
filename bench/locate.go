package bench

import (
	"context"
	"fmt"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/verify"
)

// Locator finds the server behind a URL run on this host, as verify
// does: its process, the plan of the sglaunch launch that runs it, from
// the launch's runtime state in runtimeDir, and the API key its requests
// carry by verify's one rule (verify.APIKey: the server's own --api-key,
// else key, the one given from outside). It is RunSpec.Locate.
func Locator(runtimeDir, key string) func(ctx context.Context, url string) *Located {
	return func(ctx context.Context, url string) *Located {
		t := verify.Target{URL: url, RuntimeDir: runtimeDir, APIKey: key}
		loc, err := verify.Locate(ctx, t)
		if err != nil || loc.ServerPID == 0 {
			return nil
		}
		out := &Located{Observed: Observed{ServerPID: loc.ServerPID, How: loc.How}, APIKey: verify.APIKey(loc, nil, t)}
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
