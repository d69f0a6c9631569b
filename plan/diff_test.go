package plan

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// TestDiffComparesMaskedStrings pins issue 12 defect 2: Diff compared the
// masked strings, so two different API keys were "equal" (<redacted> =
// <redacted>) and a record whose perf settings had been masked differed
// from a plan holding their real values. Real values are compared where
// both sides have them; a side that holds only the mask makes the setting
// unknown, never equal and never different.
func TestDiffComparesMaskedStrings(t *testing.T) {
	argv := func(key, tokens string) []string {
		return []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--api-key", key, "--max-total-tokens", tokens}
	}
	plan := func(key, token string) Side {
		p := &Plan{Python: "/usr/bin/python3", Module: "sglang.launch_server", Argv: argv(key, "8192"),
			Env: []EnvVar{{Name: "HF_TOKEN", Value: token}, {Name: "NCCL_ALGO", Value: "Ring"}}}
		return p.Side("plan")
	}
	record := View{Python: "/usr/bin/python3", Module: "sglang.launch_server", Argv: argv(redact.Mask, "8192"),
		Env: map[string]string{"HF_TOKEN": redact.Mask, "NCCL_ALGO": "Ring"}}
	// A record written before the fix, with a perf setting masked.
	legacy := record
	legacy.Argv = argv(redact.Mask, redact.Mask)

	rowsOf := func(rows []Row) string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Group+" "+r.Setting+" "+r.A+"|"+r.B)
		}
		return strings.Join(out, "\n")
	}
	tests := []struct {
		name string
		a, b Side
		want string
	}{
		{"one plan", plan("sk-1", "hf_1"), plan("sk-1", "hf_1"), ""},
		{"two keys and tokens differ, shown masked", plan("sk-1", "hf_1"), plan("sk-2", "hf_2"),
			"perf-relevant HF_TOKEN <redacted>|<redacted>\nperf-neutral --api-key <redacted>|<redacted>"},
		{"plan against its record", plan("sk-1", "hf_1"), SideOfView(record, "record"),
			"unknown (masked) --api-key <redacted>|<redacted>\nunknown (masked) HF_TOKEN <redacted>|<redacted>"},
		{"two records", SideOfView(record, "a"), SideOfView(record, "b"),
			"unknown (masked) --api-key <redacted>|<redacted>\nunknown (masked) HF_TOKEN <redacted>|<redacted>"},
		{"a legacy record's masked perf setting", plan("sk-1", "hf_1"), SideOfView(legacy, "legacy"),
			"unknown (masked) --api-key <redacted>|<redacted>\nunknown (masked) --max-total-tokens 8192|<redacted>\nunknown (masked) HF_TOKEN <redacted>|<redacted>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := Diff(tt.a, tt.b)
			if got := rowsOf(rows); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.name != "two keys and tokens differ, shown masked" && len(PerfRows(rows)) != 0 {
				t.Errorf("perf-relevant rows: %+v", PerfRows(rows))
			}
		})
	}
}

// TestDiff: flags are compared in canonical form (--tp is --tp-size,
// 0.88 is 0.880), each side's missing settings are shown absent, and
// perf-neutral flags apart.
func TestDiff(t *testing.T) {
	aArgv := []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp", "2", "--trust-remote-code", "--mem-fraction-static", "0.88"}
	bArgv := []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp-size", "2", "--trust-remote-code", "--mem-fraction-static", "0.880", "--port", "31000", "--api-key", "sk-1"}
	a := SideOfView(View{Python: "/usr/bin/python3", Argv: aArgv, Env: map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"}}, "a")
	b := SideOfView(View{Python: "/usr/bin/python3", Argv: bArgv, Env: map[string]string{"NCCL_ALGO": "Tree", "NCCL_DEBUG": "INFO"}}, "b")
	rows := Diff(a, b)
	var got []string
	for _, r := range rows {
		got = append(got, r.Group+" "+r.Status+" "+r.Setting+" "+r.A+"|"+r.B)
	}
	want := []string{
		"perf-relevant DIFFERENT NCCL_ALGO Ring|Tree",
		"perf-relevant EXTRA NCCL_DEBUG |INFO",
		"perf-relevant MISSING NCCL_PROTO LL|",
		"perf-neutral EXTRA --api-key |<redacted>",
		"perf-neutral EXTRA --port |31000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(PerfRows(rows)) != 3 {
		t.Errorf("perf rows: %+v", PerfRows(rows))
	}
	if rows := Diff(a, a); len(rows) != 0 {
		t.Errorf("a side differs from itself: %v", rows)
	}
}
