package test

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestVerifyServerArgsVariablesNotDrift pins issue 20's first defect:
// SGLang's ServerArgs writes SGLANG_ENABLE_TORCH_COMPILE,
// SGLANG_DISABLE_OUTLINES_DISK_CACHE, SGLANG_ENABLE_DETERMINISTIC_INFERENCE
// and SGLANG_USE_CUDA_IPC_TRANSPORT into its environment on every start,
// and verify, whose table of such variables was kept by hand, said DRIFT: 4
// on a correct deployment. A planned value SGLang overwrites was DIFFERENT.
// The sim now writes them as the generated table says, and verify judges
// by the same table: MATCH, with the overwrite shown as OVERRIDDEN.
func TestVerifyServerArgsVariablesNotDrift(t *testing.T) {
	e := newEnv(t)
	port := testkit.FreePort(t)
	// The plan asks for torch.compile through the environment only;
	// SGLang writes 0 over it without --enable-torch-compile.
	e.Profile("kimi-on-sim", kimiOnSim(t, port, "SGLANG_ENABLE_TORCH_COMPILE=1"))
	p := e.Start("serve", "--profile", "kimi-on-sim", "--skip-preflight")
	waitReadyState(t, e, "kimi-on-sim")
	stdout, stderr, code := e.Run("verify", "--profile", "kimi-on-sim", "--pid", strconv.Itoa(p.Cmd.Process.Pid))
	if code != 0 || !strings.Contains(stdout, "MATCH: every perf-relevant setting") {
		t.Errorf("verify of a correct deployment: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	if !lineWith(stdout, "OVERRIDDEN", "SGLANG_ENABLE_TORCH_COMPILE", "1", "0", "srt/server_args.py:") {
		t.Errorf("SGLANG_ENABLE_TORCH_COMPILE not OVERRIDDEN citing server_args.py:\n%s", stdout)
	}
	for _, name := range []string{"SGLANG_DISABLE_OUTLINES_DISK_CACHE", "SGLANG_ENABLE_DETERMINISTIC_INFERENCE", "SGLANG_USE_CUDA_IPC_TRANSPORT"} {
		if !lineWith(stdout, "EXTRA", name, "set by SGLang always", "srt/server_args.py:") {
			t.Errorf("%s not shown as set by SGLang, citing server_args.py:\n%s", name, stdout)
		}
	}
	if !lineWith(stdout, "note:", "SGLang 0.5.19.dev0 tables (main @ 382343f86)") || strings.Contains(stdout, "WARN SGLang") {
		t.Errorf("verify does not say it used the sim's exact SGLang tables:\n%s", stdout)
	}
	_ = syscall.Kill(p.Cmd.Process.Pid, syscall.SIGTERM)
	p.Wait(t, commandTimeout)
}
