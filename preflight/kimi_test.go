package preflight

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/profiles"
)

// TestKimiBuiltin: the reference deployment's flags and environment pass
// against the embedded catalog with only the expected warnings (two
// deprecated flags, the removed SGLANG_ENABLE_SPEC_V2); its host checks
// fail on a machine without its model, saying which path is missing.
func TestKimiBuiltin(t *testing.T) {
	p, err := (&profiles.Finder{}).Load("kimi-k2.5-int4-eagle3")
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, resolveProfile(t, p, ""), Options{Catalog: true})

	var got []string
	passedFlags := 0
	for _, f := range r.Findings {
		if !slices.Contains([]string{CheckFlags, CheckSGLEnv, CheckNCCL, CheckTorch}, f.Check) {
			continue
		}
		if f.Check == CheckFlags && f.Status == Pass {
			passedFlags++
		}
		if f.Status != Pass {
			got = append(got, fmt.Sprintf("%v %s %s: %s | fix: %s", f.Status, f.Check, f.Subject, f.Reason, f.Fix))
		}
	}
	want := []string{
		"WARN sglang-flags --cuda-graph-max-bs: deprecated alias of --cuda-graph-max-bs-decode: SGLang warns, and a later release drops it | fix: write --cuda-graph-max-bs-decode 128 instead",
		"WARN sglang-flags --enable-flashinfer-allreduce-fusion: deprecated in SGLang, which maps it to --flashinfer-allreduce-fusion-backend=auto: it still works but warns, and a later release drops it | fix: write --flashinfer-allreduce-fusion-backend auto instead",
		`WARN sglang-env SGLANG_ENABLE_SPEC_V2: removed from SGLang (removed by PR #27964 "Retire Spec V1", 2026-06-11): it has no effect, but SGLang logs a warning at start-up when it is set: "SGLANG_ENABLE_SPEC_V2 has been removed: speculative decoding always runs the V2 worker. Use --disable-overlap-schedule to select the non-overlap (synchronous) path." | fix: remove it`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("non-passing flag and env findings:\ngot  %q\nwant %q", got, want)
	}
	// 15 flags in serve mode, of which the two deprecated ones warn.
	if passedFlags != 13 {
		t.Errorf("passing flags: got %d, want 13", passedFlags)
	}
	for _, nccl := range []string{"NCCL_PROTO", "NCCL_ALGO", "NCCL_P2P_LEVEL", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_NTHREADS"} {
		if f := only(t, r, CheckNCCL, nccl); f.Status != Pass {
			t.Errorf("%s: got %v %q, want PASS", nccl, f.Status, f.Reason)
		}
	}

	for flag, path := range map[string]string{
		"--model-path":                   "/shared/kimi-k2.5-int4",
		"--speculative-draft-model-path": "/data/eagle3/output_100k_sglang/4",
	} {
		if _, err := os.Stat(path); err == nil {
			t.Logf("%s exists on this machine; its missing-model check is not exercised", path)
			continue
		}
		f := only(t, r, CheckModel, flag)
		want := path + " does not exist on this host: SGLang would fail after its imports, before loading anything"
		if f.Status != Fail || f.Reason != want {
			t.Errorf("%s: got %v %q, want FAIL %q", flag, f.Status, f.Reason, want)
		}
	}
	if !r.Failed() {
		t.Errorf("report: not failed, want failed (no model here)")
	}

	// The printed form of the checks that do not depend on this machine.
	var shown []Finding
	for _, f := range r.Findings {
		if f.Check != CheckPython && f.Check != CheckPort && f.Check != CheckGPU {
			shown = append(shown, f)
		}
	}
	fixed := &Report{Profile: r.Profile, Mode: r.Mode, Python: "python3", SGLang: SGLangInfo{Flags: "embedded catalog"}, Findings: shown}
	var b bytes.Buffer
	if err := fixed.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, t.Name(), b.String(), *testkit.Update)
}
