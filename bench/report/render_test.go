package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/benchtest"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestRenderGolden(t *testing.T) {
	old := displayZone
	displayZone = time.UTC
	t.Cleanup(func() { displayZone = old })
	r := benchtest.Record("aaaa0001", 82.5, 410, benchtest.Argv("--cuda-graph-max-bs", "128"), map[string]string{"NCCL_ALGO": "Ring", "NCCL_PROTO": "LL"})
	r.Results = append(r.Results, bench.WorkloadResult{Workload: workload.Workload{Name: "serving", Command: []string{"{{.Python}} -m sglang.bench_serving --base-url {{.URL}}"}, Shell: true},
		Status: bench.StatusFailed, Error: "serving: command exited with status 1: boom",
		External: &bench.ExternalResult{Command: []string{"/bin/sh", "-c", "python3 -m sglang.bench_serving --base-url http://127.0.0.1:30000"}, ExitCode: 1,
			Metrics: map[string]float64{"completed": 10, "median_ttft_ms": 412.25, "output_throughput": 612.5}}})
	var show bytes.Buffer
	if err := WriteShow(&show, r); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "show", show.String(), *testkit.Update)
	var list bytes.Buffer
	if err := WriteList(&list, []bench.Entry{{ID: "aaaa0001", Started: r.Started, Status: "ok", Profile: "kimi", Fingerprint: r.Fingerprint, Workloads: []string{"decode-1", "sweep8"}, Headline: bench.Headline(r)},
		{ID: "broken", Err: "not a record"}}); err != nil {
		t.Fatal(err)
	}
	testkit.Golden(t, "list", list.String(), *testkit.Update)
}
