package preflight

import (
	"strings"
	"testing"
)

// TestHealthBypassWarns pins issue 20's sixth defect: settings that make
// /health answer 200 without generating passed preflight in silence.
func TestHealthBypassWarns(t *testing.T) {
	tests := []struct {
		env  []string
		want []string // subjects warned about
	}{
		{[]string{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE=1"}, []string{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE"}},
		{[]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=false", "SGLANG_RUST_SERVER=1"}, []string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION", "SGLANG_RUST_SERVER"}},
		{[]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION=1", "SGLANG_DIAG_BYPASS_HEALTH_GENERATE=0"}, nil},
	}
	for _, tt := range tests {
		var items []envItem
		for _, kv := range tt.env {
			name, val, _ := strings.Cut(kv, "=")
			items = append(items, envItem{name: name, value: val, where: "env." + name + " (test)"})
		}
		fs := checkHealthBypass(items)
		var got []string
		for _, f := range fs {
			if f.Status != Warn || f.Check != CheckHealth || !strings.Contains(f.Reason, "one-token /generate") || f.Where == "" {
				t.Errorf("%v: finding %+v, want a WARN of the health check that says readiness generates", tt.env, f)
			}
			got = append(got, f.Subject)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%v: warned about %v, want %v", tt.env, got, tt.want)
		}
	}
}
