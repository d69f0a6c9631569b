package tune

import (
	"slices"
	"testing"
)

// space24 is a 24-point grid on the sim's model, with its known optimum.
const space24 = `parameters:
  env.NCCL_PROTO: [Simple, LL, LL128]
  env.NCCL_MIN_NCHANNELS: [8, 16]
  args.cuda-graph-max-bs: {pow2: [64, 512]}
objective: {workload: quick, metric: median_tpot_ms}
`

var optimum24 = []string{"env.NCCL_PROTO=LL128", "env.NCCL_MIN_NCHANNELS=16", "args.cuda-graph-max-bs=128"}

// BenchmarkTune24 runs the 24-point grid, then the adaptive strategy on
// it, each in a home of its own (no reuse), and reports for each: the
// wall time, the points' own time (their servers' loads, workloads and
// stops), sglaunch's overhead in all and per launch, the launches, the
// rounds, and whether the winner is the model's optimum.
//
//	go test ./test/tune -run '^$' -bench Tune24 -benchtime 1x
func BenchmarkTune24(b *testing.B) {
	for _, strategy := range []string{"grid", "adaptive"} {
		b.Run(strategy, func(b *testing.B) {
			for range b.N {
				h := newHome(b, 4, "")
				h.tune(b, "--space", h.space(b, space24), "--strategy", strategy)
				rec := h.last(b)
				tm := rec.Timing
				found := 0.0
				if v := rec.Verdict; v != nil && v.Winner >= 0 && slices.Equal(rec.Points[v.Winner].Sets, optimum24) {
					found = 1
				}
				b.ReportMetric(tm.Wall, "wall_s")
				b.ReportMetric(tm.Points, "points_s")
				b.ReportMetric(tm.Overhead, "overhead_s")
				b.ReportMetric(tm.PerPoint, "overhead_s/launch")
				b.ReportMetric(float64(tm.Launches), "launches")
				b.ReportMetric(float64(tm.Rounds), "rounds")
				b.ReportMetric(found, "optimum")
				b.Logf("%s: %s", strategy, rec.Verdict.Text)
			}
		})
	}
}
