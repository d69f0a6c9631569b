package verify

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestSGLangSetVariables pins issue 10's second defect: verify flagged
// variables SGLang sets itself (SGLANG_RUN_ID, cache directories, ...),
// knowing three such names. Each now comes from one table citing its
// SGLang source, and an overwrite SGLang makes of a planned value
// (deterministic inference) is shown as OVERRIDDEN, not drift.
func TestSGLangSetVariables(t *testing.T) {
	worker := func(e map[string]string) Process {
		return Process{PID: 101, PPID: 100, Argv: []string{"sglang::scheduler_TP0"}, Env: e}
	}
	srvEnv := env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")
	wEnv := env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGLANG_RUN_ID=sglang-run-1-2", "CUDA_CACHE_PATH=/root/.cache/sglang/nv", "CUDA_DEVICE_MAX_CONNECTIONS=8")
	r := Compare(expected(), obs(Process{PID: 100, Argv: serverArgv(), Env: srvEnv}, worker(wEnv)))
	if r.Drift != 0 {
		t.Errorf("drift %d on variables SGLang sets itself:\n%s", r.Drift, rowsText(r))
	}
	for _, row := range r.Rows {
		if row.Setting == "SGLANG_RUN_ID" && (row.Group != plan.Neutral || !strings.Contains(row.Note, "srt/entrypoints/engine.py")) {
			t.Errorf("SGLANG_RUN_ID row %+v: want perf-neutral, citing engine.py", row)
		}
	}

	det := expected()
	det.Argv = append(det.Argv, "--enable-deterministic-inference")
	over := env("NCCL_ALGO=allreduce:tree", "NCCL_PROTO=LL")
	r = Compare(det, obs(Process{PID: 100, Argv: append(serverArgv(), "--enable-deterministic-inference"), Env: srvEnv}, worker(over)))
	if r.Drift != 0 || !strings.Contains(rowsText(r), "OVERRIDDEN NCCL_ALGO") {
		t.Errorf("deterministic inference: drift %d, want NCCL_ALGO OVERRIDDEN:\n%s", r.Drift, rowsText(r))
	}
	r = Compare(expected(), obs(Process{PID: 100, Argv: serverArgv(), Env: srvEnv}, worker(over)))
	if r.Drift != 1 {
		t.Errorf("without deterministic inference a changed NCCL_ALGO is drift: got %d\n%s", r.Drift, rowsText(r))
	}
}
