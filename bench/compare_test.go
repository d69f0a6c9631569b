package bench

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/plan"
)

// fixture builds a launched run of one decode-1 level and a sweep level.
func fixture(id string, decode, ttft float64, argv []string, env map[string]string) *Record {
	t0 := time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
	r := NewRecord(t0)
	r.ID, r.Sglaunch, r.SGLang, r.SGLangFrom = id, "0.1.0", "0.5.10", "importlib.metadata via /usr/bin/python3"
	r.Argv = []string{"sglaunch", "bench", "--profile", "kimi"}
	r.URL, r.Launched, r.Profile, r.Fingerprint = "http://127.0.0.1:30000", true, "kimi", id+"f00dfeedbeef"
	var order []string
	for k := range env {
		order = append(order, k)
	}
	if len(order) > 1 && order[0] > order[1] {
		order[0], order[1] = order[1], order[0]
	}
	r.Plan = &plan.View{Profile: "kimi", Source: "/etc/sglaunch/profiles/kimi.yaml", Mode: "bench", Fingerprint: r.Fingerprint,
		Python: "/usr/bin/python3", Module: "sglang.launch_server", Argv: argv, Env: env, EnvOrder: order}
	r.Host = Host{Hostname: "gpu1", CPU: "AMD EPYC 9654", CPUs: 192, MemoryGiB: 1511.6, GPUCount: 8, Driver: "580.159.04", CUDA: "13.0"}
	for i := range 8 {
		r.Host.GPUs = append(r.Host.GPUs, GPU{Index: i, Name: "NVIDIA RTX PRO 6000 Blackwell", MemoryMiB: 97887})
	}
	r.Server = &ServerStart{PID: 4242, Load: health.Load{StartedAt: t0, ReadyAt: t0.Add(312 * time.Second), Seconds: 312.4,
		Phases: []health.Phase{{Name: "weights loaded", At: 201500 * time.Millisecond}, {Name: "CUDA graphs captured", At: 290100 * time.Millisecond}, {Name: "warm-up done", At: 311900 * time.Millisecond}}},
		Stop: "stopped by sglaunch: exit status 137 (SIGKILL)", Log: "/var/lib/sglaunch/records/x.server.log"}
	d1, _ := Builtin("decode-1")
	sw := Workload{Name: "sweep8", Source: "built-in", API: loadgen.Generate, InputLen: 1024, OutputLen: 512, Concurrency: []int{8}, Rounds: 4, Warmup: 1, Seed: 1}
	lvl1 := LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 1}, Started: t0, Ended: t0.Add(time.Minute),
		Metrics: loadgen.Metrics{Completed: 5, Duration: 31.9, TotalInputTokens: 5120, TotalOutputTokens: 2560, RequestThroughput: 0.157,
			OutputThroughput: decode * 0.96, TTFT: loadgen.Dist{Median: ttft, P99: ttft + 3}, ITL: loadgen.Dist{Median: 1000 / decode, P99: 1200 / decode},
			TPOT: loadgen.Dist{Median: 1000 / decode}, E2E: loadgen.Dist{Median: ttft + 511*1000/decode}, DecodeRate: decode}}, AcceptLength: 2.85}
	lvl8 := LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 8}, Started: t0, Ended: t0.Add(time.Minute),
		Metrics: loadgen.Metrics{Completed: 31, Failed: 1, Duration: 44, RequestThroughput: 0.7, OutputThroughput: decode * 6,
			TTFT: loadgen.Dist{Median: ttft * 2, P99: ttft * 3}, ITL: loadgen.Dist{Median: 1300 / decode, P99: 2000 / decode}, TPOT: loadgen.Dist{Median: 1300 / decode},
			E2E: loadgen.Dist{Median: 8000}}, Errors: []loadgen.ErrorCount{{Message: "request timed out", Count: 1}}}}
	r.Results = []WorkloadResult{
		{Workload: d1, Status: StatusOK, Started: t0, Ended: t0.Add(time.Minute), Levels: []LevelRecord{lvl1}},
		{Workload: sw, Status: StatusOK, Started: t0, Ended: t0.Add(time.Minute), Levels: []LevelRecord{lvl8}},
	}
	r.Finish(t0.Add(7*time.Minute), nil)
	return r
}

func baseArgv(extra ...string) []string {
	return append([]string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/models/kimi", "--tp", "8"}, extra...)
}

func TestCompare(t *testing.T) {
	a := fixture("aaaa0001", 82.5, 410, baseArgv("--cuda-graph-max-bs", "128", "--port", "30000"), map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	b := fixture("bbbb0002", 96.1, 380, baseArgv("--cuda-graph-max-bs", "256", "--port", "31000", "--enable-torch-compile"), map[string]string{"NCCL_ALGO": "Tree", "SGLANG_X": "1"})
	c := Compare(a, b)
	if c.SamePlan {
		t.Error("different fingerprints compared as the same plan")
	}
	diffs := map[string]plan.Row{}
	for _, d := range c.Differences {
		diffs[d.Kind+" "+d.Setting] = d
	}
	const perf, neutral = plan.Perf, plan.Neutral
	for _, want := range []plan.Row{
		{Group: perf, Kind: "flag", Setting: "--cuda-graph-max-bs", Status: plan.Different, A: "128", B: "256", InA: true, InB: true},
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
	var decode *MetricDelta
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
	var out bytes.Buffer
	if err := WriteComparison(&out, c, false); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "compare", out.String(), *testkit.Update)
}

func TestCompareUnknownPlan(t *testing.T) {
	a := fixture("aaaa0001", 82.5, 410, baseArgv(), nil)
	b := fixture("bbbb0002", 82.5, 410, baseArgv(), nil)
	b.Plan, b.Fingerprint = nil, ""
	c := Compare(a, b)
	if c.PlanNote == "" || c.SamePlan {
		t.Errorf("got %+v, want a note that B's plan is unknown", c)
	}
	if z := delta("w", "c=1", "failed", 0, 2); z.HasDelta {
		t.Errorf("a delta from zero: got %+v, want none", z)
	}
}

func TestRenderGolden(t *testing.T) {
	old := displayZone
	displayZone = time.UTC
	t.Cleanup(func() { displayZone = old })
	r := fixture("aaaa0001", 82.5, 410, baseArgv("--cuda-graph-max-bs", "128"), map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	r.Results = append(r.Results, WorkloadResult{Workload: Workload{Name: "serving", Command: []string{"{{.Python}} -m sglang.bench_serving --base-url {{.URL}}"}, Shell: true},
		Status: StatusFailed, Error: "serving: command exited with status 1: boom",
		External: &ExternalResult{Command: []string{"/bin/sh", "-c", "python3 -m sglang.bench_serving --base-url http://127.0.0.1:30000"}, ExitCode: 1,
			Metrics: map[string]float64{"completed": 10, "median_ttft_ms": 412.25, "output_throughput": 612.5}}})
	var show bytes.Buffer
	if err := WriteShow(&show, r); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "show", show.String(), *testkit.Update)
	var list bytes.Buffer
	if err := WriteList(&list, []Entry{{ID: "aaaa0001", Started: r.Started, Status: "ok", Profile: "kimi", Fingerprint: r.Fingerprint, Workloads: []string{"decode-1", "sweep8"}, Headline: Headline(r)},
		{ID: "broken", Err: "not a record"}}); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "list", list.String(), *testkit.Update)
}

// TestCompareOneVerdictFor088And0880 pins issue 9's first defect through
// bench compare: --mem-fraction-static 0.88 and 0.880 are one float to
// SGLang, so the records have the same plan and no difference.
func TestCompareOneVerdictFor088And0880(t *testing.T) {
	env := map[string]string{"NCCL_ALGO": "Ring"}
	a := fixture("aaaa0001", 82.5, 410, baseArgv("--mem-fraction-static", "0.88"), env)
	b := fixture("bbbb0002", 82.5, 410, baseArgv("--mem-fraction-static", "0.880"), env)
	c := Compare(a, b)
	if !c.SamePlan {
		t.Error("SamePlan = false for 0.88 against 0.880")
	}
	for _, d := range c.Differences {
		if d.Kind != "context" {
			t.Errorf("unexpected difference %+v", d)
		}
	}
}
