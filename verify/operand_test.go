package verify

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// TestWorkerOnlyNCCLProtoDriftSameVerdictInVerifyAndDiff pins issue 19's
// second defect: when one TP worker ran NCCL_PROTO=Simple under a plan
// with LL, verify reported NCCL_PROTO DIFFERENT, but `diff plan running`
// reduced the deployment to its server process alone and showed no
// NCCL_PROTO row at all (exit 0). diff now judges a deployment as verify
// does: every process, one row type.
func TestWorkerOnlyNCCLProtoDriftSameVerdictInVerifyAndDiff(t *testing.T) {
	argv := []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m", "--tp-size", "2"}
	exp := Expected{Label: "profile p (serve)", Argv: argv, Env: map[string]string{"NCCL_PROTO": "LL"}, EnvOrder: []string{"NCCL_PROTO"}, Managed: []string{"NCCL_"}}
	obs := &Observation{ServerPID: 100, Procs: []Process{
		{PID: 100, Argv: argv, Env: map[string]string{"NCCL_PROTO": "LL"}},
		{PID: 101, PPID: 100, Argv: []string{"sglang::scheduler_TP0"}, Env: map[string]string{"NCCL_PROTO": "LL"}},
		{PID: 102, PPID: 100, Argv: []string{"sglang::scheduler_TP1"}, Env: map[string]string{"NCCL_PROTO": "Simple"}},
	}}
	proto := func(rows []plan.Row) []plan.Row {
		var out []plan.Row
		for _, r := range rows {
			if r.Setting == "NCCL_PROTO" {
				out = append(out, r)
			}
		}
		return out
	}

	report := Compare(exp, obs)
	v := proto(report.Differences())
	if report.OK() || len(v) != 1 || v[0].Status != plan.Different || v[0].B != "Simple" || v[0].Where != "env of pid 102" {
		t.Fatalf("verify: drift %d, NCCL_PROTO rows %+v; want one DIFFERENT Simple in pid 102", report.Drift, v)
	}

	planOp := Operand{Heading: Heading{Label: exp.Label}, Exp: exp}
	depOp := Operand{Heading: Heading{Label: "deployment pid 100"}, Obs: obs}
	rows := Judge(planOp, depOp)
	if d := proto(rows); len(d) != 1 || d[0] != v[0] {
		t.Errorf("diff plan running: NCCL_PROTO rows %+v, want verify's %+v", d, v)
	}
	if !PerfDiffers(rows) {
		t.Error("diff plan running: no perf-relevant difference (exit 0), verify says DRIFT")
	}
	// Operands the other way round: the same row, sides exchanged.
	rows = Judge(depOp, planOp)
	if d := proto(rows); len(d) != 1 || d[0].A != "Simple" || d[0].B != "LL" || d[0].Status != plan.Different || !PerfDiffers(rows) {
		t.Errorf("diff running plan: NCCL_PROTO rows %+v, want Simple against LL", d)
	}
}

// TestDiffOperands pins diff's composition: two plans give one
// comparison, plan.Diff's; --group wants exactly one deployment.
func TestDiffOperands(t *testing.T) {
	side := func(label, proto string) plan.Side {
		return plan.Side{Label: label, Python: "python3", Env: map[string]string{"NCCL_PROTO": proto}, Args: map[string][]string{}}
	}
	a := PlanOperand("a", side("profile a", "LL"), Expected{})
	b := PlanOperand("b", side("profile b", "Simple"), Expected{})
	diffs, err := Diff(t.Context(), &a, &b, false)
	if err != nil || len(diffs) != 1 || diffs[0].A.Label != "profile a" || diffs[0].B.Label != "profile b" {
		t.Fatalf("Diff = %+v, %v; want one comparison of a with b", diffs, err)
	}
	if want := plan.Diff(a.Side, b.Side); len(diffs[0].Rows) != len(want) || !PerfDiffers(diffs[0].Rows) {
		t.Errorf("rows %+v, want plan.Diff's %+v", diffs[0].Rows, want)
	}
	if _, err := Diff(t.Context(), &a, &b, true); !inputerr.Is(err) || !strings.Contains(err.Error(), "want one running deployment") {
		t.Errorf("diff --group of two plans: got %v, want an input error asking for one deployment", err)
	}
}
