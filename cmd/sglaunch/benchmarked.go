package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

// nearestScan bounds how many of the newest records serve reads to find
// the nearest one when none has the plan's fingerprint.
const nearestScan = 200

// reportBenchmarked tells, at serve start, which benchmark this plan
// reproduces: the newest successful bench record with the same
// fingerprint; when there is none, the nearest record and the settings
// that differ from it.
func (e *env) reportBenchmarked(c *cli.Context, plan *plan.Plan, log *slog.Logger) {
	store, err := e.recordStore(c)
	if err != nil {
		return
	}
	entries, err := store.List()
	if err != nil || len(entries) == 0 {
		log.Info(fmt.Sprintf("not benchmarked: no bench records yet (fingerprint %s); `sglaunch bench --profile %s` makes one", plan.ShortFingerprint(), plan.Profile))
		return
	}
	for i := len(entries) - 1; i >= 0; i-- {
		en := entries[i]
		if en.Err == "" && en.Status == "ok" && en.Fingerprint == plan.Fingerprint {
			rec, err := store.Get(en.ID)
			if err != nil {
				continue
			}
			log.Info("benchmarked: " + describeRecord(rec))
			return
		}
	}
	want := verify.SideOf(verify.FromPlan(plan, "plan"))
	var best *bench.Record
	var bestRows []verify.DiffRow
	for i := len(entries) - 1; i >= 0 && i >= len(entries)-nearestScan; i-- {
		if entries[i].Err != "" {
			continue
		}
		rec, err := store.Get(entries[i].ID)
		if err != nil || rec.Plan == nil {
			continue
		}
		rows := perfRows(verify.Diff(want, verify.SideOf(verify.FromView(*rec.Plan, "record", true))))
		if best == nil || len(rows) < len(bestRows) {
			best, bestRows = rec, rows
		}
	}
	if best == nil {
		log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s, and none has a known plan", plan.ShortFingerprint()))
		return
	}
	var diffs []string
	for _, r := range bestRows {
		diffs = append(diffs, fmt.Sprintf("%s %s (benchmarked %s)", r.Setting, orAbsent(r.A), orAbsent(r.B)))
	}
	log.Warn(fmt.Sprintf("not benchmarked: no bench record has this plan's fingerprint %s; nearest is %s, which differs in: %s",
		plan.ShortFingerprint(), describeRecord(best), strings.Join(diffs, ", ")))
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

func perfRows(rows []verify.DiffRow) []verify.DiffRow {
	var out []verify.DiffRow
	for _, r := range rows {
		if r.Group == verify.Perf {
			out = append(out, r)
		}
	}
	return out
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}
