package plan

import (
	"slices"
	"testing"
)

func TestCanonicalValue(t *testing.T) {
	tests := []struct{ typ, in, want string }{
		{"float", "0.880", "0.88"},
		{"float", "0.88", "0.88"},
		{"float", "1e-3", "0.001"},
		{"float", " 2 ", "2"},
		{"int", "08", "8"},
		{"int", "+8", "8"},
		{"int", "eight", "eight"},
		{"int", "128k", "128k"},
		{"json", `{"b": 1, "a": [1, 2]}`, `{"a":[1,2],"b":1}`},
		{"json", `{not json`, `{not json`},
		{"str", "0.880", "0.880"},
		{"", "0.880", "0.880"},
	}
	for _, tt := range tests {
		if got := CanonicalValue(tt.typ, tt.in); got != tt.want {
			t.Errorf("CanonicalValue(%s, %q) = %q, want %q", tt.typ, tt.in, got, tt.want)
		}
	}
}

func TestFlagsCanonicalForm(t *testing.T) {
	got := Flags([]string{"--tp", "08", "--mem-fraction-static=0.880", "--cuda-graph-bs", "1", "02", "--tp-size", "8", "--enable-torch-compile", "--unknown-x", "0.50"})
	want := []struct {
		name   string
		values []string
	}{
		{"--tp-size", []string{"8"}},
		{"--mem-fraction-static", []string{"0.88"}},
		// The deprecated --cuda-graph-bs stores into --cuda-graph-bs-decode's dest.
		{"--cuda-graph-bs-decode", []string{"1", "2"}},
		{"--enable-torch-compile", []string{}},
		{"--unknown-x", []string{"0.50"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d flags %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || !slices.Equal(got[i].Values, w.values) {
			t.Errorf("flag %d: got %s %q, want %s %q", i, got[i].Name, got[i].Values, w.name, w.values)
		}
	}
}

// TestOneVerdictFor088And0880 pins issue 9's first defect: for
// --mem-fraction-static 0.88 against 0.880 (one float to SGLang's
// argparse), bench compare reported a difference, diff none, and the
// fingerprints differed, so serve's "nearest record" line listed no
// difference. Now the fingerprint and Diff, which every command uses,
// agree that they are equal.
func TestOneVerdictFor088And0880(t *testing.T) {
	view := func(v string) View {
		return View{Python: "/usr/bin/python3", Module: "sglang.launch_server",
			Argv: []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--mem-fraction-static", v}}
	}
	a, b := view("0.88"), view("0.880")
	if fa, fb := FingerprintOf(a), FingerprintOf(b); fa != fb {
		t.Errorf("fingerprints differ: %s vs %s", fa, fb)
	}
	if rows := Diff(SideOfView(a, "a"), SideOfView(b, "b")); len(rows) != 0 {
		t.Errorf("Diff reports %+v", rows)
	}
	c := view("0.9")
	rows := Diff(SideOfView(a, "a"), SideOfView(c, "c"))
	if len(rows) != 1 || rows[0].Setting != "--mem-fraction-static" || rows[0].A != "0.88" || rows[0].B != "0.9" {
		t.Errorf("0.88 vs 0.9: got %+v, want one --mem-fraction-static row", rows)
	}
}

// TestSPTNoEnv: every plan gives the server SPT_NOENV=1 (issue 10: keep
// the workers' environments readable), shown with its layer and left out
// of the fingerprint, so plans and records from before share it.
func TestSPTNoEnv(t *testing.T) {
	v := View{Python: "/usr/bin/python3", Module: "m", Argv: []string{"/usr/bin/python3", "-m", "m", "--model-path", "/m"},
		Env: map[string]string{"NCCL_ALGO": "Ring"}}
	with := v
	with.Env = map[string]string{"NCCL_ALGO": "Ring", "SPT_NOENV": "1"}
	if FingerprintOf(v) != FingerprintOf(with) {
		t.Error("SPT_NOENV=1 changes the fingerprint")
	}
	other := v
	other.Env = map[string]string{"NCCL_ALGO": "Ring", "SPT_NOENV": "0"}
	if FingerprintOf(v) == FingerprintOf(other) {
		t.Error("a profile's own SPT_NOENV=0 is left out of the fingerprint")
	}
}
