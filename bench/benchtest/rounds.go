package benchtest

import (
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
)

// RoundsLevel is a c=8 level of the given per-round output throughputs
// and median TTFTs; the level's own values are the rounds' means.
func RoundsLevel(tput, ttft []float64) bench.LevelRecord {
	l := bench.LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: 8}}}
	var sumT, sumF float64
	for i := range tput {
		l.Rounds = append(l.Rounds, bench.RoundRecord{Metrics: loadgen.Metrics{Completed: 8, OutputThroughput: tput[i], TTFT: loadgen.Dist{Median: ttft[i]}}})
		sumT, sumF = sumT+tput[i], sumF+ttft[i]
	}
	l.Metrics = loadgen.Metrics{Completed: 8 * len(tput), OutputThroughput: sumT / float64(len(tput)), TTFT: loadgen.Dist{Median: sumF / float64(len(tput))}}
	return l
}

// RoundsRecord is a record of one workload, sweep, that ran the level l.
func RoundsRecord(id string, l bench.LevelRecord) *bench.Record {
	r := bench.NewRecord(time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC))
	r.ID, r.Status, r.URL = id, bench.StatusOK, "http://127.0.0.1:30000"
	r.Results = []bench.WorkloadResult{{Workload: workload.Workload{Name: "sweep", Rounds: len(l.Rounds)}, Status: bench.StatusOK, Levels: []bench.LevelRecord{l}}}
	return r
}
