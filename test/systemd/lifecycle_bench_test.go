package systemd

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkStartLag measures the time from the sim's first /health 200 to
// `systemctl start` returning (sglaunch's probe, READY=1, systemd's own
// handling), one start/stop cycle per iteration, each checked as
// TestStartBlocksUntilHealthy checks its one:
//
//	go test ./test/systemd -run '^$' -bench StartLag -benchtime 5x
//
// It reports the median and the largest lag in milliseconds.
func BenchmarkStartLag(b *testing.B) {
	m := needMachine(b)
	c := newStartCycle(b, m, "startlag", 31011)
	var lags []time.Duration
	for b.Loop() {
		_, lag := c.start(b)
		lags = append(lags, lag)
		c.stop(b)
	}
	slices.Sort(lags)
	b.ReportMetric(float64(lags[len(lags)/2].Microseconds())/1000, "median-lag-ms")
	b.ReportMetric(float64(lags[len(lags)-1].Microseconds())/1000, "max-lag-ms")
	b.Logf("/health 200 -> systemctl start returned: %v", lags)
}
