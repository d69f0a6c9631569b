package benchtest

import (
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/plan"
)

// Record builds the record of a launched run of one decode-1 level and
// one sweep level: decode is its decode rate, ttft its median TTFT, argv
// and env its plan's.
func Record(id string, decode, ttft float64, argv []string, env map[string]string) *bench.Record {
	t0 := time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
	r := bench.NewRecord(t0)
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
	r.Host = bench.Host{Hostname: "gpu1", CPU: "AMD EPYC 9654", CPUs: 192, MemoryGiB: 1511.6, GPUCount: 8, Driver: "580.159.04", CUDA: "13.0"}
	for i := range 8 {
		r.Host.GPUs = append(r.Host.GPUs, bench.GPU{Index: i, Name: "NVIDIA RTX PRO 6000 Blackwell", MemoryMiB: 97887})
	}
	r.Server = &bench.ServerStart{PID: 4242, Load: health.Load{StartedAt: t0, ReadyAt: t0.Add(312 * time.Second), Seconds: 312.4,
		Phases: []health.Phase{{Name: "weights loaded", At: 201500 * time.Millisecond}, {Name: "CUDA graphs captured", At: 290100 * time.Millisecond}, {Name: "warm-up done", At: 311900 * time.Millisecond}}},
		Stop: "stopped by sglaunch: exit status 137 (SIGKILL)", Log: "/var/lib/sglaunch/records/x.server.log"}
	d1, _ := workload.Builtin("decode-1")
	sw := workload.Workload{Name: "sweep8", Source: "built-in", API: loadgen.Generate, InputLen: 1024, OutputLen: 512, Concurrency: []int{8}, Rounds: 4, Warmup: 1, Seed: 1}
	lvl1 := bench.LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 1}, Started: t0, Ended: t0.Add(time.Minute),
		Metrics: loadgen.Metrics{Completed: 5, Duration: 31.9, TotalInputTokens: 5120, TotalOutputTokens: 2560, RequestThroughput: 0.157,
			OutputThroughput: decode * 0.96, TTFT: loadgen.Dist{Median: ttft, P99: ttft + 3}, ITL: loadgen.Dist{Median: 1000 / decode, P99: 1200 / decode},
			TPOT: loadgen.Dist{Median: 1000 / decode}, E2E: loadgen.Dist{Median: ttft + 511*1000/decode}, DecodeRate: decode}}, AcceptLength: 2.85}
	lvl8 := bench.LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 8}, Started: t0, Ended: t0.Add(time.Minute),
		Metrics: loadgen.Metrics{Completed: 31, Failed: 1, Duration: 44, RequestThroughput: 0.7, OutputThroughput: decode * 6,
			TTFT: loadgen.Dist{Median: ttft * 2, P99: ttft * 3}, ITL: loadgen.Dist{Median: 1300 / decode, P99: 2000 / decode}, TPOT: loadgen.Dist{Median: 1300 / decode},
			E2E: loadgen.Dist{Median: 8000}}, Errors: []loadgen.ErrorCount{{Message: "request timed out", Count: 1}}}}
	r.Results = []bench.WorkloadResult{
		{Workload: d1, Status: bench.StatusOK, Started: t0, Ended: t0.Add(time.Minute), Levels: []bench.LevelRecord{lvl1}},
		{Workload: sw, Status: bench.StatusOK, Started: t0, Ended: t0.Add(time.Minute), Levels: []bench.LevelRecord{lvl8}},
	}
	r.Finish(t0.Add(7*time.Minute), nil)
	return r
}

// Argv is a server command line with extra appended.
func Argv(extra ...string) []string {
	return append([]string{"/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "/models/kimi", "--tp", "8"}, extra...)
}
