package verify

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestSGLangSetVariables pins issue 10's second defect: verify flagged
// variables SGLang sets itself (SGLANG_RUN_ID, cache directories, ...),
// knowing three such names. Each now comes from the tables generated from
// SGLang's source, citing its file and line, and an overwrite SGLang makes
// of a planned value (deterministic inference) is shown as OVERRIDDEN, not
// drift.
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
		if row.Setting == "SGLANG_RUN_ID" && (row.Group != plan.Neutral || !strings.Contains(row.Note, "srt/entrypoints/engine.py:")) {
			t.Errorf("SGLANG_RUN_ID row %+v: want perf-neutral, citing engine.py and its line", row)
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

// TestServerArgsVariablesNotDrift pins issue 20's first defect: SGLang's
// ServerArgs writes SGLANG_ENABLE_TORCH_COMPILE,
// SGLANG_DISABLE_OUTLINES_DISK_CACHE, SGLANG_ENABLE_DETERMINISTIC_INFERENCE
// (and, in newer releases, SGLANG_USE_CUDA_IPC_TRANSPORT) on every start,
// which verify's hand-kept table did not know: DRIFT 4 on a correct
// deployment. A planned value SGLang overwrites was DIFFERENT, not
// OVERRIDDEN; a planned SGL_* name SGLang copies to SGLANG_* was drift.
func TestServerArgsVariablesNotDrift(t *testing.T) {
	worker := func(e map[string]string) Process {
		return Process{PID: 101, PPID: 100, Argv: []string{"sglang::scheduler_TP0"}, Env: e}
	}
	written := []string{"NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGLANG_ENABLE_TORCH_COMPILE=0", "SGLANG_DISABLE_OUTLINES_DISK_CACHE=0", "SGLANG_ENABLE_DETERMINISTIC_INFERENCE=0"}
	for _, tt := range []struct {
		version string
		extra   []string
	}{
		{"0.5.4.post3", []string{"SGLANG_MAMBA_SSM_DTYPE=float32"}},
		{"0.5.19.dev0", []string{"SGLANG_USE_CUDA_IPC_TRANSPORT=0"}},
		{"0.5.6.post2", []string{"SGLANG_MAMBA_SSM_DTYPE=float32"}},
		{"0.5.10", []string{"SGLANG_MAMBA_SSM_DTYPE=float32"}}, // nearest older: 0.5.6.post2
	} {
		t.Run(tt.version, func(t *testing.T) {
			o := obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")}, worker(env(append(written, tt.extra...)...)))
			o.Version = tt.version
			r := Compare(expected(), o)
			if r.Drift != 0 {
				t.Errorf("drift %d on a correct deployment:\n%s", r.Drift, rowsText(r))
			}
		})
	}

	// A planned value SGLang overwrites on every start: OVERRIDDEN.
	exp := expected()
	exp.Env["SGLANG_ENABLE_TORCH_COMPILE"] = "1"
	exp.EnvOrder = append(exp.EnvOrder, "SGLANG_ENABLE_TORCH_COMPILE")
	srv := Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGLANG_ENABLE_TORCH_COMPILE=1")}
	o := obs(srv, worker(env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGLANG_ENABLE_TORCH_COMPILE=0")))
	o.Version = "0.5.19.dev0"
	r := Compare(exp, o)
	if r.Drift != 0 || !strings.Contains(rowsText(r), "OVERRIDDEN SGLANG_ENABLE_TORCH_COMPILE") {
		t.Errorf("overwritten by ServerArgs: drift %d, want OVERRIDDEN:\n%s", r.Drift, rowsText(r))
	}

	// A planned legacy SGL_ name, copied by SGLang to SGLANG_: not drift;
	// an SGLANG_ name nobody planned or copied still is.
	exp = expected()
	exp.Env["SGL_FOO"] = "1"
	exp.EnvOrder = append(exp.EnvOrder, "SGL_FOO")
	exp.Managed = append(exp.Managed, "SGL_")
	srv = Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGL_FOO=1")}
	o = obs(srv, worker(env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "SGL_FOO=1", "SGLANG_FOO=1", "SGLANG_BAR=1")))
	o.Version = "0.5.19.dev0"
	r = Compare(exp, o)
	if r.Drift != 1 {
		t.Errorf("SGL_ copies: drift %d, want 1 (SGLANG_BAR):\n%s", r.Drift, rowsText(r))
	}
	for _, row := range r.Rows {
		if row.Setting == "SGLANG_FOO" && (row.Group != plan.Neutral || !strings.Contains(row.Note, "srt/environ.py:")) {
			t.Errorf("SGLANG_FOO row %+v: want perf-neutral, citing environ.py", row)
		}
	}
}

// TestTablesNote: verify says which SGLang tables it judged by, and warns
// when they are not the deployment's exact version's.
func TestTablesNote(t *testing.T) {
	for _, tt := range []struct{ version, want, not string }{
		{"0.5.4.post3", "SGLang 0.5.4.post3 tables (v0.5.4.post3 @ 09938e1f8)", "WARN"},
		{"0.5.10", "WARN SGLang 0.5.6.post2 tables (5c8bd8b51): no tables for SGLang 0.5.10; using the nearest older", "\n"},
		{"", "WARN SGLang 0.5.19.dev0 tables (main @ 382343f86): SGLang version unknown", "\n"},
	} {
		got := tablesNote(tt.version)
		if !strings.HasPrefix(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("tablesNote(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}

// TestEnvConditionedWriteStaysDifferent: SGLang rewrites some variables
// only under a condition on the environment (CUDA_VISIBLE_DEVICES under
// SGLANG_ONE_VISIBLE_DEVICE_PER_PROCESS), which the plan's flags cannot
// decide: a worker's changed value stays DIFFERENT (drift), not
// OVERRIDDEN.
func TestEnvConditionedWriteStaysDifferent(t *testing.T) {
	exp := expected()
	exp.Env["CUDA_VISIBLE_DEVICES"] = "0,1"
	exp.EnvOrder = append(exp.EnvOrder, "CUDA_VISIBLE_DEVICES")
	srv := Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "CUDA_VISIBLE_DEVICES=0,1")}
	w := Process{PID: 101, PPID: 100, Argv: []string{"sglang::scheduler_TP0"}, Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL", "CUDA_VISIBLE_DEVICES=1")}
	o := obs(srv, w)
	o.Version = "0.5.19.dev0"
	r := Compare(exp, o)
	if r.Drift != 1 || !strings.Contains(rowsText(r), "DIFFERENT CUDA_VISIBLE_DEVICES") {
		t.Errorf("drift %d, want CUDA_VISIBLE_DEVICES DIFFERENT:\n%s", r.Drift, rowsText(r))
	}
}

// TestReportJSONNamesTables: verify --json says which SGLang tables it
// judged by, as the text report's note does.
func TestReportJSONNamesTables(t *testing.T) {
	o := obs(Process{PID: 100, Argv: serverArgv(), Env: env("NCCL_ALGO=Ring", "NCCL_PROTO=LL")})
	o.Version = "0.5.10"
	var b strings.Builder
	if err := Compare(expected(), o).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if want := `"sglang_tables": "WARN SGLang 0.5.6.post2 tables (5c8bd8b51): no tables for SGLang 0.5.10; using the nearest older"`; !strings.Contains(b.String(), want) {
		t.Errorf("JSON report lacks %s:\n%s", want, b.String())
	}
}
