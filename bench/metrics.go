package bench

import (
	"fmt"
	"slices"
	"sort"

	"github.com/sglaunch/sglaunch/loadgen"
)

// A record's numbers by name and in brief: what listings, the serve
// line and the comparison read from it.

// Headline is a run's first result in one phrase: the decode rate of a
// single-stream level, else the output throughput.
func Headline(r *Record) string {
	for _, res := range r.Results {
		for _, l := range res.Levels {
			if l.Metrics.DecodeRate > 0 {
				return fmt.Sprintf("%s %s: %.1f tok/s decode", res.Workload.Name, l.Level, l.Metrics.DecodeRate)
			}
			return fmt.Sprintf("%s %s: %.1f tok/s out", res.Workload.Name, l.Level, l.Metrics.OutputThroughput)
		}
		if res.External != nil {
			if v, ok := res.External.Metrics["output_throughput"]; ok {
				return fmt.Sprintf("%s: %.1f tok/s out", res.Workload.Name, v)
			}
		}
	}
	return ""
}

// OutputThroughput is a run's first output throughput: the first level
// of the first workload, or an external workload's output_throughput.
func OutputThroughput(r *Record) (float64, bool) {
	for _, res := range r.Results {
		for _, l := range res.Levels {
			return l.Metrics.OutputThroughput, true
		}
		if res.External != nil {
			v, ok := res.External.Metrics["output_throughput"]
			return v, ok
		}
	}
	return 0, false
}

// levelMetric returns a level's metric by name, accept_length included.
func levelMetric(l LevelRecord, name string) (float64, bool) {
	if name == "accept_length" {
		return l.AcceptLength, l.AcceptLength != 0
	}
	if name == "decode_tok_s" {
		return l.Metrics.DecodeRate, l.Metrics.DecodeRate != 0
	}
	return l.Metrics.Get(name)
}

// metricOrder sorts metric names: the generator's order, then the rest
// alphabetically.
func metricOrder(names []string) []string {
	known := loadgen.MetricNames()
	known = append(known, "accept_length")
	out := slices.Clone(names)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := slices.Index(known, out[i]), slices.Index(known, out[j])
		switch {
		case a >= 0 && b >= 0:
			return a < b
		case a >= 0:
			return true
		case b >= 0:
			return false
		}
		return out[i] < out[j]
	})
	return out
}
