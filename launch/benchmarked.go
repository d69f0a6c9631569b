package launch

import (
	"context"
	"fmt"
	"strings"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/verify"
)

// lookUpBenchmarked tells, at start, which benchmark this plan
// reproduces (bench.Store.Benchmarked decides), and returns it; nil when
// the records cannot be read.
func lookUpBenchmarked(ctx context.Context, l *launch) *bench.Benchmarked {
	p, log := l.spec.Plan, l.spec.Log
	b, err := l.spec.Records.Benchmarked(p)
	switch {
	case err != nil:
		log.Warn("cannot read the bench records: " + err.Error())
		return nil
	case b.Empty:
		log.Info(fmt.Sprintf("not benchmarked: no bench records yet (fingerprint %s); `sglaunch bench --profile %s` makes one", p.ShortFingerprint(), p.Profile))
	case b.Exact != nil:
		log.Info("benchmarked: " + describeRecord(b.Exact))
		l.warnNotAsBenchmarked(ctx, b.Exact)
	case b.Nearest == nil:
		log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s, and none has a known plan", p.ShortFingerprint()))
	default:
		var diffs []string
		for _, r := range b.Differences {
			diffs = append(diffs, fmt.Sprintf("%s %s (benchmarked %s)", r.Setting, orAbsent(r.A, r.InA), orAbsent(r.B, r.InB)))
		}
		log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s; nearest is %s, which differs in: %s",
			p.ShortFingerprint(), describeRecord(b.Nearest), strings.Join(diffs, ", ")))
		l.warnNotAsBenchmarked(ctx, b.Nearest)
	}
	return &b
}

// warnNotAsBenchmarked warns when this launch runs another interpreter
// or another SGLang than the record names: the numbers were measured
// with those, and a unit that found python3 on systemd's PATH ran
// neither.
func (l *launch) warnNotAsBenchmarked(ctx context.Context, rec *bench.Record) {
	p, log := l.spec.Plan, l.spec.Log
	if rec.Plan != nil && rec.Plan.Python != "" && rec.Plan.Python != p.Python && !verify.SameInterpreter(p.Python, rec.Plan.Python) {
		log.Warn(fmt.Sprintf("this launch runs python %s; record %s was benchmarked with %s", p.Python, rec.ID, rec.Plan.Python))
	}
	if rec.SGLang == "" {
		return
	}
	if v, err := bench.SGLangVersion(ctx, l.spec.Probes, p); err == nil && v != "" && v != rec.SGLang {
		log.Warn(fmt.Sprintf("this launch runs SGLang %s; record %s was benchmarked with SGLang %s", v, rec.ID, rec.SGLang))
	}
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

// benchmarkSummary is what /status says of the records (nil: unknown).
func benchmarkSummary(b *bench.Benchmarked) *statusBenchmark {
	switch {
	case b == nil:
		return nil
	case b.Empty:
		return &statusBenchmark{None: "no bench records yet"}
	case b.Exact != nil:
		out := &statusBenchmark{Record: b.Exact.ID, Date: b.Exact.Started.Format("2006-01-02"), Exact: true, Headline: bench.Headline(b.Exact)}
		out.OutputThroughput, _ = bench.OutputThroughput(b.Exact)
		return out
	case b.Nearest == nil:
		return &statusBenchmark{None: "no bench record has this fingerprint, and none has a known plan"}
	}
	out := &statusBenchmark{Record: b.Nearest.ID, Date: b.Nearest.Started.Format("2006-01-02")}
	for _, r := range b.Differences {
		out.DiffersIn = append(out.DiffersIn, r.Setting)
	}
	return out
}
