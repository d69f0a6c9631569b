package plan

import (
	"slices"
	"strings"
	"testing"
)

func argvTail(p *Plan) string { return strings.Join(ArgvTail(p.Argv), " ") }

// TestChildAliasReplacesParentFlagInPlace pins issue 20's new-user defect:
// a child profile's tp-size: 4 over its parent's tp: 2 gave
// "--tp 2 ... --tp-size 4" (and preflight's "given again" warning),
// because the extends chain merged args by name. One setting, one flag:
// the child's, at the parent's place.
func TestChildAliasReplacesParentFlagInPlace(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "parent.yaml", "args:\n  model-path: /m\n  tp: 2\n  cuda-graph-max-bs: 16\n  mem-fraction-static: 0.8\n")
	write(t, dir, "child.yaml", "extends: parent\nargs:\n  tp-size: 4\n  cuda-graph-max-bs-decode: 32\n")
	p := resolve(t, Request{Profile: load(t, []string{dir}, "child"), Mode: ModeServe})
	if got, want := argvTail(p), "--model-path /m --tp-size 4 --cuda-graph-max-bs-decode 32 --mem-fraction-static 0.8"; got != want {
		t.Errorf("argv: got %q, want %q", got, want)
	}
	if len(p.Repeats) != 0 {
		t.Errorf("repeats: got %v, want none (a child overrides its parent)", p.Repeats)
	}
	if got := p.Provenance["args.tp-size"]; got != "profile" {
		t.Errorf("args.tp-size provenance: got %q, want profile", got)
	}
	if _, ok := p.Provenance["args.tp"]; ok {
		t.Error("args.tp still has a provenance: the parent's flag was not replaced")
	}
}

// TestChildRemovesParentFlagThroughAlias: a child's tp-size: false
// removes its parent's tp: the extends chain merges args by setting, so
// the removal meets the flag it removes (by name it met nothing, and the
// parent's --tp 2 stayed).
func TestChildRemovesParentFlagThroughAlias(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "parent.yaml", "args:\n  model-path: /m\n  tp: 2\n  cuda-graph-max-bs: 16\n")
	write(t, dir, "child.yaml", "extends: parent\nargs:\n  tensor-parallel-size: false\n  cuda-graph-max-bs-decode: false\n")
	p := resolve(t, Request{Profile: load(t, []string{dir}, "child"), Mode: ModeServe})
	if got, want := argvTail(p), "--model-path /m"; got != want {
		t.Errorf("argv: got %q, want %q", got, want)
	}
}

// TestTwoSpellingsOneSetting: a setting given twice in one layer through
// two spellings is passed once, at the first one's place with the last
// value, and the plan lists the repeat (preflight warns on it; config
// prints it). A later layer's spelling (--set over the profile) replaces
// in place without a repeat.
func TestTwoSpellingsOneSetting(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "twice.yaml", "args:\n  model-path: /m\n  tp: 2\n  trust-remote-code: true\n  tensor-parallel-size: 4\n  cuda-graph-max-bs: 16\n")
	tests := []struct {
		name    string
		sets    []string
		argv    string
		repeats []string
	}{
		{"in one profile", nil,
			"--model-path /m --tensor-parallel-size 4 --trust-remote-code --cuda-graph-max-bs 16",
			[]string{"--tp-size: args.tp at " + dir + "/twice.yaml:3:3 (profile) -> args.tensor-parallel-size at " + dir + "/twice.yaml:5:3 (profile)"}},
		{"--set over the profile's deprecated alias", []string{"args.cuda-graph-max-bs-decode=8"},
			"--model-path /m --tensor-parallel-size 4 --trust-remote-code --cuda-graph-max-bs-decode 8",
			[]string{"--tp-size: args.tp at " + dir + "/twice.yaml:3:3 (profile) -> args.tensor-parallel-size at " + dir + "/twice.yaml:5:3 (profile)"}},
		{"two --set spellings", []string{"args.cuda-graph-max-bs-decode=8", "args.cuda-graph-max-bs=4"},
			"--model-path /m --tensor-parallel-size 4 --trust-remote-code --cuda-graph-max-bs 4",
			[]string{
				"--tp-size: args.tp at " + dir + "/twice.yaml:3:3 (profile) -> args.tensor-parallel-size at " + dir + "/twice.yaml:5:3 (profile)",
				"--cuda-graph-max-bs-decode: args.cuda-graph-max-bs-decode (--set) -> args.cuda-graph-max-bs (--set)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := resolve(t, Request{Profile: load(t, []string{dir}, "twice"), Mode: ModeServe, Sets: tt.sets})
			if got := argvTail(p); got != tt.argv {
				t.Errorf("argv: got %q, want %q", got, tt.argv)
			}
			var got []string
			for _, r := range p.Repeats {
				got = append(got, r.Setting+": "+r.First+" -> "+r.Again)
			}
			if !slices.Equal(got, tt.repeats) {
				t.Errorf("repeats:\n got %q\nwant %q", got, tt.repeats)
			}
			if len(tt.repeats) > 0 && !strings.Contains(p.Text(), "# given again") {
				t.Errorf("config text does not show the repeat:\n%s", p.Text())
			}
		})
	}
}

// TestAliasSpellingsOneFingerprint: the fingerprint and Diff read each
// flag as the setting it stores into, so writing a deprecated alias's
// replacement, or another alias, changes neither (issue 20: following
// preflight's advice to write --cuda-graph-max-bs-decode made diff exit 1).
func TestAliasSpellingsOneFingerprint(t *testing.T) {
	view := func(flags ...string) View {
		return View{Python: "/usr/bin/python3", Module: "sglang.launch_server",
			Argv: append([]string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m"}, flags...)}
	}
	pairs := []struct{ a, b []string }{
		{[]string{"--cuda-graph-max-bs", "16"}, []string{"--cuda-graph-max-bs-decode", "16"}},
		{[]string{"--tp", "2"}, []string{"--tp-size", "2"}},
		{[]string{"--tensor-parallel-size", "2"}, []string{"--tp-size", "2"}},
		{[]string{"--stream-output"}, []string{"--incremental-streaming-output"}},
		{[]string{"--enable-breakable-cuda-graph"}, []string{"--cuda-graph-backend-prefill", "breakable"}},
		// Two spellings of one setting: argparse keeps the last.
		{[]string{"--cuda-graph-max-bs-decode", "8", "--cuda-graph-max-bs", "16"}, []string{"--cuda-graph-max-bs-decode", "16"}},
	}
	for _, p := range pairs {
		a, b := view(p.a...), view(p.b...)
		if FingerprintOf(a) != FingerprintOf(b) {
			t.Errorf("%q and %q: fingerprints differ", p.a, p.b)
		}
		if rows := Diff(SideOfView(a, "a"), SideOfView(b, "b")); len(rows) != 0 {
			t.Errorf("%q and %q: Diff reports %+v", p.a, p.b, rows)
		}
	}
	// Still a difference when the values differ, named by the setting.
	rows := Diff(SideOfView(view("--cuda-graph-max-bs", "16"), "a"), SideOfView(view("--cuda-graph-max-bs-decode", "32"), "b"))
	if len(rows) != 1 || rows[0].Setting != "--cuda-graph-max-bs-decode" || rows[0].A != "16" || rows[0].B != "32" {
		t.Errorf("16 vs 32: got %+v, want one --cuda-graph-max-bs-decode row", rows)
	}
}
