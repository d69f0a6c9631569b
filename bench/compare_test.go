package bench_test

import (
	"math"
	"testing"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/benchtest"
	"github.com/sglaunch/sglaunch/plan"
)

func TestCompare(t *testing.T) {
	a := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv("--cuda-graph-max-bs", "128", "--port", "30000"), map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	b := benchtest.Record("bbbb0002", 96.1, 380, benchtest.Argv("--cuda-graph-max-bs", "256", "--port", "31000", "--enable-torch-compile"), map[string]string{"NCCL_ALGO": "Tree", "SGLANG_X": "1"})
	c := bench.Compare(a, b)
	if c.SamePlan {
		t.Error("different fingerprints compared as the same plan")
	}
	diffs := map[string]plan.Row{}
	for _, d := range c.Differences {
		diffs[d.Kind+" "+d.Setting] = d
	}
	const perf, neutral = plan.Perf, plan.Neutral
	for _, want := range []plan.Row{
		// Named by the setting the deprecated --cuda-graph-max-bs stores into.
		{Group: perf, Kind: "flag", Setting: "--cuda-graph-max-bs-decode", Status: plan.Different, A: "128", B: "256", InA: true, InB: true},
		{Group: neutral, Kind: "flag", Setting: "--port", Status: plan.Different, A: "30000", B: "31000", InA: true, InB: true},
		{Group: perf, Kind: "flag", Setting: "--enable-torch-compile", Status: plan.Extra, A: "", B: "", InA: false, InB: true},
		{Group: perf, Kind: "env", Setting: "NCCL_ALGO", Status: plan.Different, A: "Ring", B: "Tree", InA: true, InB: true},
		{Group: perf, Kind: "env", Setting: "NCCL_PROTO", Status: plan.Missing, A: "LL", InA: true},
		{Group: perf, Kind: "env", Setting: "SGLANG_X", Status: plan.Extra, B: "1", InB: true},
	} {
		got, ok := diffs[want.Kind+" "+want.Setting]
		if !ok || got != want {
			t.Errorf("difference %s %s: got %+v, want %+v", want.Kind, want.Setting, got, want)
		}
	}
	if _, ok := diffs["flag --tp-size"]; ok {
		t.Error("an unchanged flag is listed as a difference")
	}
	var decode *bench.MetricDelta
	for i, m := range c.Metrics {
		if m.Workload == "decode-1" && m.Level == "c=1" && m.Metric == "decode_tok_s" {
			decode = &c.Metrics[i]
		}
	}
	if decode == nil {
		t.Fatal("no decode_tok_s delta for decode-1 c=1")
	}
	if want := (96.1 - 82.5) / 82.5 * 100; !decode.HasDelta || math.Abs(decode.DeltaPct-want) > 1e-9 {
		t.Errorf("decode delta: got %+v, want %+.4f%%", decode, want)
	}
}

func TestCompareUnknownPlan(t *testing.T) {
	a := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv(), nil)
	b := benchtest.Record("bbbb0002", 82.5, 410, benchtest.Argv(), nil)
	b.Plan, b.Fingerprint = nil, ""
	c := bench.Compare(a, b)
	if c.PlanNote == "" || c.SamePlan {
		t.Errorf("got %+v, want a note that B's plan is unknown", c)
	}
}

// TestCompareOneVerdictFor088And0880 pins issue 9's first defect through
// bench compare: --mem-fraction-static 0.88 and 0.880 are one float to
// SGLang, so the records have the same plan and no difference.
func TestCompareOneVerdictFor088And0880(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring"}
	a := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv("--mem-fraction-static", "0.88"), env)
	b := benchtest.Record("bbbb0002", 82.5, 410, benchtest.Argv("--mem-fraction-static", "0.880"), env)
	c := bench.Compare(a, b)
	if !c.SamePlan {
		t.Error("SamePlan = false for 0.88 against 0.880")
	}
	for _, d := range c.Differences {
		if d.Kind != "context" {
			t.Errorf("unexpected difference %+v", d)
		}
	}
}
