package preflight

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/plan"
)

// SiteHooks runs the plan's interpreter with the plan's environment, as
// every start of the server does, to see what site initialisation
// (sitecustomize, usercustomize, .pth files) does to the variables the
// plan manages. A change means the server would not run the plan: FAIL,
// or WARN when allow is set (--allow-site-overrides). The probe failing
// to run is a WARN: the launch can go on without it.
func SiteHooks(ctx context.Context, p *plan.Plan, allow bool, dir string) Finding {
	s := subject{CheckSite, "python start-up", "python (" + p.Provenance["python"] + ")"}
	watch := slices.Clone(p.Managed)
	for _, v := range p.Env {
		watch = append(watch, v.Name)
	}
	changes, err := hostprobe.ProbeSite(ctx, p.Python, p.Environ, dir, watch)
	if err != nil {
		return s.warn("python start-up check skipped: "+err.Error(), "")
	}
	if len(changes) == 0 {
		return s.pass("site initialisation leaves every managed variable as planned")
	}
	var lines []string
	for _, ch := range changes {
		what := fmt.Sprintf("%s=%s", ch.Name, ch.After)
		if ch.Unset {
			what = "unsets " + ch.Name
		}
		was := "unset by the plan"
		if v, ok := p.EnvValue(ch.Name); ok {
			was = "the plan says " + v
		}
		lines = append(lines, fmt.Sprintf("%s (%s) by %s", what, was, ch.Where()))
	}
	reason := "python start-up changes managed variables, so the server would not run the plan: " + strings.Join(lines, "; ")
	if allow {
		return s.warn(reason+" (--allow-site-overrides: launching anyway)", "")
	}
	return s.fail(reason, "remove the hook or move the setting into the profile, or pass --allow-site-overrides")
}
