package health

import (
	"strings"
	"testing"
)

func TestBypasses(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, ""},
		{map[string]string{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE": "1"}, "SGLANG_DIAG_BYPASS_HEALTH_GENERATE"},
		{map[string]string{"SGLANG_DIAG_BYPASS_HEALTH_GENERATE": "false"}, ""},
		{map[string]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION": "0"}, "SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION"},
		{map[string]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION": "True"}, ""},
		// An invalid value is SGLang's default (generation on).
		{map[string]string{"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION": "maybe"}, ""},
		{map[string]string{"SGLANG_RUST_SERVER": "YES", "SGLANG_DIAG_BYPASS_HEALTH_GENERATE": "y"}, "SGLANG_DIAG_BYPASS_HEALTH_GENERATE,SGLANG_RUST_SERVER"},
	}
	for _, tt := range tests {
		var names []string
		for _, b := range Bypasses(func(n string) (string, bool) { v, ok := tt.env[n]; return v, ok }) {
			names = append(names, b.Name)
		}
		if got := strings.Join(names, ","); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.env, got, tt.want)
		}
	}
}
