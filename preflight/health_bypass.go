package preflight

import (
	"fmt"

	"github.com/sglaunch/sglaunch/health"
)

// CheckHealth is the check of the settings that make SGLang's /health
// answer without generating.
const CheckHealth = "health"

// checkHealthBypass WARNs on each variable of the server's environment
// under which /health answers 200 without a generation (health.Bypasses):
// a 200 then proves nothing, so sglaunch's readiness proves a one-token
// /generate itself after /health passes. No finding when none is set.
func checkHealthBypass(items []envItem) []Finding {
	where := map[string]string{}
	values := map[string]string{}
	for _, it := range items {
		where[it.name], values[it.name] = it.where, it.value
	}
	var out []Finding
	for _, b := range health.Bypasses(func(n string) (string, bool) { v, ok := values[n]; return v, ok }) {
		s := subject{CheckHealth, b.Name, where[b.Name]}
		out = append(out, s.warn(
			fmt.Sprintf("%s=%s %s: a 200 from /health does not show that the server generates, so readiness also sends a one-token /generate of its own", b.Name, shown(b.Name, b.Value), b.Why),
			"unset it unless you need it; liveness after ready still trusts /health",
		))
	}
	return out
}
