package status

import (
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestRender(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	since := at.Add(-24 * time.Hour)
	snaps := []*Snapshot{
		{
			Profile: "demo", Mode: "serve", Fingerprint: fingerprint, SGLangVersion: "0.5.10+sim", URL: "http://127.0.0.1:30000",
			StatusURL: "http://127.0.0.1:9400", Phase: PhaseReady, Ready: true, PIDs: PIDs{Sglaunch: 100, Server: 101},
			Load: health.Load{StartedAt: at, ReadyAt: at.Add(2 * time.Second), Seconds: 2, Phases: []health.Phase{
				{Name: health.PhaseLoadingWeights, At: 100 * time.Millisecond}, {Name: health.PhaseWeightsLoaded, At: 700 * time.Millisecond}}},
			ElapsedS: 62, SinceReadyS: 60,
			Liveness: Liveness{IntervalS: 10, Last: &Probe{At: at.Add(55 * time.Second), OK: true, Result: "ok", TookMS: 4.2}},
			Restarts: 2, LaunchesSince: &since, LastExit: &Exit{At: at.Add(-time.Minute), Status: 137, Code: 1, Reason: "server unhealthy: 3 liveness probes failed in a row"},
			Benchmarked: &Benchmark{Record: "20261130T101500Z-1a2b3c4d", Date: "2026-11-30", Exact: true, OutputThroughput: 96.1, Headline: "decode-1 c=1: 96.1 tok/s decode"},
		},
		{
			Profile: "demo", Mode: "serve", Fingerprint: fingerprint, URL: "http://127.0.0.1:30000", StatusURL: "http://127.0.0.1:9400",
			Phase: health.PhaseCapturingGraphs, Why: "loading: capturing CUDA graphs, 12.0s elapsed, ETA 18.0s", PIDs: PIDs{Sglaunch: 100, Server: 101},
			Load:     health.Load{StartedAt: at, Phases: []health.Phase{{Name: health.PhaseCapturingGraphs, At: 11 * time.Second}}},
			ElapsedS: 12, ETA: &ETA{Known: true, RemainingS: 18, TypicalS: 30, EarlierLoads: 3},
			LastLoad:    &health.Load{StartedAt: since, ReadyAt: since.Add(30 * time.Second), Seconds: 30},
			Readiness:   &Probe{At: at.Add(11 * time.Second), Result: "refused", Error: "connection refused", TookMS: 0.3},
			Liveness:    Liveness{IntervalS: 10},
			Benchmarked: &Benchmark{Record: "20261130T101500Z-1a2b3c4d", Date: "2026-11-30", DiffersIn: []string{"NCCL_ALGO", "--cuda-graph-max-bs"}},
		},
		FromRunState(&runstate.State{Profile: "old", Mode: "bench", Fingerprint: fingerprint, SglaunchPID: 7, ServerPID: 8, URL: "http://127.0.0.1:30001",
			Load: health.Load{StartedAt: at}, Stale: true}),
	}
	var b strings.Builder
	for _, s := range snaps {
		if err := Render(&b, s); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	testkit.Golden(t, "TestRender", b.String(), *testkit.Update)

	// RenderAll: the same launches, a blank line between two, none after.
	var all strings.Builder
	if err := RenderAll(&all, snaps); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(b.String(), "\n"); all.String() != want {
		t.Errorf("RenderAll:\n%s\nwant:\n%s", all.String(), want)
	}
}
