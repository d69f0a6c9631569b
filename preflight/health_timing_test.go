package preflight

import (
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/plan"
)

// TestHealthTimeoutBelowSGLangsWait pins issue 22: a
// health.request_timeout at or below SGLang's own /health wait (it sleeps
// 1 s before it checks for its generated token) never became ready,
// silently, for the whole start_timeout. Preflight now fails it.
func TestHealthTimeoutBelowSGLangsWait(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		env     map[string]string
		sim     bool
		fails   bool
	}{
		{"500ms", 500 * time.Millisecond, nil, false, true},
		{"1s, as long as the wait", time.Second, nil, false, true},
		{"2s", 2 * time.Second, nil, false, false},
		{"the simulator's wait scaled down", time.Second, map[string]string{"SGLANG_SIM_HEALTH_POLL_SECONDS": "0.1"}, true, false},
		{"the simulator's knob under a real SGLang", time.Second, map[string]string{"SGLANG_SIM_HEALTH_POLL_SECONDS": "0.1"}, false, true},
		{"health without generation", 500 * time.Millisecond, map[string]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION": "0"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &plan.Plan{Provenance: map[string]string{"health.request_timeout": "profile"}}
			p.Health.RequestTimeout = tt.timeout
			got := checkHealthTiming(p, tt.env, tt.sim)
			if fails := len(got) == 1 && got[0].Status == Fail; fails != tt.fails {
				t.Fatalf("findings %+v, want fail=%v", got, tt.fails)
			}
			if tt.fails && !strings.Contains(got[0].Fix, "health.request_timeout") {
				t.Errorf("fix %q does not say what to set", got[0].Fix)
			}
		})
	}
}
