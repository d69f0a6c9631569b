package preflight

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/plan"
)

// TestAdviceKeepsFingerprint pins issue 20's new-user defect: preflight
// said to write --cuda-graph-max-bs-decode for the deprecated
// --cuda-graph-max-bs; doing so changed the plan's fingerprint (so no
// bench record matched and diff exited 1), although SGLang stores both
// into one field. For every deprecated flag that stores into another
// flag's setting, following the advice keeps the fingerprint.
func TestAdviceKeepsFingerprint(t *testing.T) {
	args := catalog.SGLangArgs()
	view := func(flags []string) plan.View {
		return plan.View{Python: "/usr/bin/python3", Module: "sglang.launch_server",
			Argv: append([]string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m"}, flags...)}
	}
	n := 0
	for _, f := range args.Flags {
		if s := args.Setting(f); !f.Deprecated || s == f || s.Deprecated {
			// A setting of its own (or shared only with other deprecated
			// flags): SGLang rewrites it, if at all, after parsing.
			continue
		}
		n++
		values := sampleValues(f)
		fix := replacementFix(f, values)
		written, ok := strings.CutPrefix(fix, "write ")
		written, ok2 := strings.CutSuffix(written, " instead")
		if !ok || !ok2 {
			t.Errorf("%s: advice %q does not say what to write", f.Name, fix)
			continue
		}
		before := append([]string{f.Name}, values...)
		after := strings.Fields(written)
		if plan.FingerprintOf(view(before)) != plan.FingerprintOf(view(after)) {
			t.Errorf("%s: following %q changes the fingerprint (%q -> %q)", f.Name, fix, before, after)
		}
	}
	if n < 10 {
		t.Errorf("only %d deprecated aliases checked; the catalog lost their dests", n)
	}
}

// sampleValues is a value a flag takes: its first choice, else one of
// its type, twice for a list.
func sampleValues(f *catalog.Flag) []string {
	if f.Action != "store" {
		return nil
	}
	v := "x"
	switch {
	case len(f.Choices) > 0:
		v = f.Choices[0]
	case f.Type == "int":
		v = "8"
	case f.Type == "float":
		v = "0.5"
	}
	if f.Nargs == "+" || f.Nargs == "*" {
		return []string{v, v}
	}
	return []string{v}
}
