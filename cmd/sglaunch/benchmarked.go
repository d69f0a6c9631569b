package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/plan"
)

// reportBenchmarked tells, at serve start, which benchmark this plan
// reproduces (bench.Store.Benchmarked decides), and returns it; nil when
// the records cannot be read.
func (e *env) reportBenchmarked(c *cli.Context, p *plan.Plan, log *slog.Logger) *bench.Benchmarked {
	store, err := e.recordStore(c)
	if err != nil {
		return nil
	}
	b, err := store.Benchmarked(p)
	switch {
	case err != nil:
		log.Warn("cannot read the bench records: " + err.Error())
		return nil
	case b.Empty:
		log.Info(fmt.Sprintf("not benchmarked: no bench records yet (fingerprint %s); `sglaunch bench --profile %s` makes one", p.ShortFingerprint(), p.Profile))
	case b.Exact != nil:
		log.Info("benchmarked: " + describeRecord(b.Exact))
	case b.Nearest == nil:
		log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s, and none has a known plan", p.ShortFingerprint()))
	default:
		var diffs []string
		for _, r := range b.Differences {
			diffs = append(diffs, fmt.Sprintf("%s %s (benchmarked %s)", r.Setting, orAbsent(r.A, r.InA), orAbsent(r.B, r.InB)))
		}
		log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s; nearest is %s, which differs in: %s",
			p.ShortFingerprint(), describeRecord(b.Nearest), strings.Join(diffs, ", ")))
	}
	return &b
}

// describeRecord is "<id> <date> output_throughput=... (<headline>)".
func describeRecord(r *bench.Record) string {
	s := r.ID + " " + r.Started.Format("2006-01-02")
	if v, ok := bench.OutputThroughput(r); ok {
		s += fmt.Sprintf(" output_throughput=%.1f tok/s", v)
	}
	if h := bench.Headline(r); h != "" {
		s += " (" + h + ")"
	}
	return s
}

func orAbsent(s string, present bool) string {
	switch {
	case !present:
		return "absent"
	case s == "":
		return "set"
	}
	return s
}
