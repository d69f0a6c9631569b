package preflight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestCatalogForInstalledVersion: without --help and the package sources
// (--catalog), flags and SGLANG_* names are checked against the installed
// version's tables, the nearest older set with a WARN when it has none
// (issue 20). SGLang 0.5.5 falls back to 0.5.4.post3's: there
// --cuda-graph-max-bs is a flag of its own (deprecated only later) and
// SGLANG_MASKED_GEMM_FAST_ACT is still read (retired later).
func TestCatalogForInstalledVersion(t *testing.T) {
	pkg := fakeSGLang(t, t.TempDir(), "0.5.5", fakeParser)
	yaml := fmt.Sprintf(`name: test
python: python3
env:
  PYTHONPATH: %s
  SGLANG_MASKED_GEMM_FAST_ACT: 1
args:
  model-path: %s
  port: %d
  cuda-graph-max-bs: 8
`, pkg, modelDir(t), testkit.FreePort(t))
	r := run(t, resolve(t, yaml, ""), Options{Catalog: true})
	if r.SGLang.Version != "0.5.5" || r.SGLang.Tables != "0.5.4.post3" {
		t.Fatalf("sglang: got %+v, want version 0.5.5 with the 0.5.4.post3 tables", r.SGLang)
	}
	if f := only(t, r, CheckPython, "sglang tables"); f.Status != Warn || !strings.Contains(f.Reason, "no tables for SGLang 0.5.5; using the nearest older") {
		t.Errorf("tables: got %+v, want a WARN naming the nearest older set", f)
	}
	if f := only(t, r, CheckFlags, "--cuda-graph-max-bs"); f.Status != Pass {
		t.Errorf("--cuda-graph-max-bs: got %+v, want PASS (not deprecated in 0.5.4.post3)", f)
	}
	if f := only(t, r, CheckSGLEnv, "SGLANG_MASKED_GEMM_FAST_ACT"); f.Status != Pass || !strings.Contains(f.Reason, "SGLang reads it") {
		t.Errorf("SGLANG_MASKED_GEMM_FAST_ACT: got %+v, want PASS (read by 0.5.4.post3)", f)
	}
	if got, want := catalogOrigin("0.5.5"), "the embedded catalog (SGLang 0.5.4.post3 @ 09938e1f8"; !strings.HasPrefix(got, want) {
		t.Errorf("origin %q, want %q", got, want)
	}
}
