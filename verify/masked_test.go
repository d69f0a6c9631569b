package verify

import (
	"testing"

	"github.com/sglaunch/sglaunch/plan"
)

// TestVerifyRecordComparesMaskedSecrets pins issue 12 defect 2: a record
// stores secrets masked, and verify --record compared those masks (an
// observed HF_TOKEN masked the same way "matched", and the record's masked
// perf settings were DIFFERENT from the deployment's real values, so a
// deployment that was exactly the benchmark reported DRIFT). A masked
// value is now UNKNOWN: not compared, not drift; the perf settings whose
// names hold "token" or "key" are stored and compared for real.
func TestVerifyRecordComparesMaskedSecrets(t *testing.T) {
	argv := []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--max-total-tokens", "8192", "--api-key", "sk-live-1"}
	p := &plan.Plan{Python: "/usr/bin/python3", Module: "sglang.launch_server", Argv: argv,
		Env: []plan.EnvVar{{Name: "NCCL_IB_PKEY", Value: "1"}, {Name: "SGLANG_HF_TOKEN", Value: "hf_real"}}}
	rec := FromView(p.View(), "record r1", true)
	o := obs(Process{PID: 100, Argv: argv, Env: env("NCCL_IB_PKEY=1", "SGLANG_HF_TOKEN=hf_other")})
	r := Compare(rec, o)
	if r.Drift != 0 {
		t.Errorf("drift %d on the benchmarked deployment:\n%s", r.Drift, rowsText(r))
	}
	got := map[string]string{}
	for _, row := range r.Rows {
		got[row.Setting] = row.Status
	}
	for setting, want := range map[string]string{"--max-total-tokens": plan.Match, "NCCL_IB_PKEY": plan.Match, "--api-key": plan.NotCompared, "SGLANG_HF_TOKEN": plan.NotCompared} {
		if got[setting] != want {
			t.Errorf("%s: got %s, want %s\n%s", setting, got[setting], want, rowsText(r))
		}
	}
	// Against the plan itself (secrets intact), a different token is drift.
	r = Compare(FromPlan(p, "profile p"), o)
	if r.Drift != 1 {
		t.Errorf("against the plan: drift %d, want 1 (SGLANG_HF_TOKEN)\n%s", r.Drift, rowsText(r))
	}
}
