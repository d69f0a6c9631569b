package preflight

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/plan"
)

// sglangHealthWait is how long SGLang's /health takes at the least: it
// sends a one-token generation, sleeps 1 s, then checks that the token
// came (health_generate in srt/entrypoints/http_server.py).
const sglangHealthWait = time.Second

// simHealthPollVar scales that wait in sglaunch's simulator
// (sim/README.md), so that fast tests may probe with a short timeout. It
// is read only when the installed SGLang is the simulator: SGLang's own
// wait is fixed.
const simHealthPollVar = "SGLANG_SIM_HEALTH_POLL_SECONDS"

// checkHealthTiming fails a health.request_timeout that SGLang's /health
// cannot answer within: every probe would time out, and the server would
// never become ready, silently, for the whole start_timeout. It says
// nothing when the timing is sound.
func checkHealthTiming(p *plan.Plan, env map[string]string, sim bool) []Finding {
	wait := sglangHealthWait
	if v, ok := env[simHealthPollVar]; ok && sim {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			wait = time.Duration(f * float64(time.Second))
		}
	}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	if len(health.Bypasses(lookup)) > 0 {
		wait = 0 // /health answers without generating (checkHealthBypass warns)
	}
	timeout := p.Health.RequestTimeout
	if timeout <= 0 || timeout > wait {
		return nil
	}
	s := subject{CheckHealth, "health.request_timeout", p.Provenance["health.request_timeout"]}
	return []Finding{s.fail(
		fmt.Sprintf("health.request_timeout %s is not longer than SGLang's own /health wait (%s: it generates one token, sleeps, then checks): every probe would time out and the server would never become ready", timeout, wait),
		fmt.Sprintf("set health.request_timeout to %s or more", wait+4*time.Second))}
}
