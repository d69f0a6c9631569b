package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/health"
)

// displayZone is the time zone times are shown in; tests fix it.
var displayZone = time.Local

// WriteResults prints a table per workload: one row per level, with
// bench_serving's headline metrics.
func WriteResults(w io.Writer, r *bench.Record) error {
	for i, res := range r.Results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeWorkload(w, res)
	}
	return nil
}

func writeWorkload(w io.Writer, res bench.WorkloadResult) {
	wl := res.Workload
	status := res.Status
	if res.Error != "" {
		status += ": " + res.Error
	}
	fmt.Fprintf(w, "%s  [%s]  %s\n", wl.Name, status, wl.Summary())
	if res.External != nil {
		writeExternal(w, res.External)
		return
	}
	if len(res.Levels) == 0 {
		return
	}
	// Columns only some runs have: the chunk gap when chunks carry several
	// tokens (speculative decoding), goodput with an SLO.
	gaps := slices.ContainsFunc(res.Levels, func(l bench.LevelRecord) bool {
		return l.Metrics.ChunkGap.Median > l.Metrics.ITL.Median*1.01
	})
	goodput := slices.ContainsFunc(res.Levels, func(l bench.LevelRecord) bool { return l.Metrics.HasGoodput })
	t := &table{indent: "  "}
	head := []string{"level", "ok", "failed", "req/s", "out tok/s", "TTFT ms med", "p99", "ITL ms med", "p99", "TPOT ms med", "E2E ms med", "decode tok/s", "accept"}
	if gaps {
		head = append(head, "chunk gap ms med")
	}
	if goodput {
		head = append(head, "goodput req/s")
	}
	t.add(head...)
	for _, l := range res.Levels {
		m := l.Metrics
		row := []string{l.Level.String(), fmt.Sprint(m.Completed), fmt.Sprint(m.Failed), f2(m.RequestThroughput), f1(m.OutputThroughput),
			f1(m.TTFT.Median), f1(m.TTFT.P99), f2(m.ITL.Median), f2(m.ITL.P99), f2(m.TPOT.Median), fmt.Sprintf("%.0f", m.E2E.Median),
			optional(m.DecodeRate, "%.1f"), optional(l.AcceptLength, "%.2f")}
		if gaps {
			row = append(row, f2(m.ChunkGap.Median))
		}
		if goodput {
			row = append(row, f2(m.RequestGoodput))
		}
		t.add(row...)
	}
	t.write(w)
	for _, l := range res.Levels {
		for _, e := range l.Errors {
			fmt.Fprintf(w, "  %s: %d x %s\n", l.Level, e.Count, e.Message)
		}
		if l.FlushError != "" {
			fmt.Fprintf(w, "  %s: /flush_cache failed: %s\n", l.Level, l.FlushError)
		}
	}
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func optional(v float64, format string) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// externalHeadline are the result fields shown for a command workload
// when it writes bench_serving's JSON.
var externalHeadline = []string{"completed", "request_throughput", "output_throughput", "median_ttft_ms", "p99_ttft_ms", "median_itl_ms", "median_tpot_ms", "median_e2e_latency_ms", "accept_length"}

func writeExternal(w io.Writer, x *bench.ExternalResult) {
	fmt.Fprintf(w, "  exit status %d: %s\n", x.ExitCode, strings.Join(x.Command, " "))
	var parts []string
	for _, k := range externalHeadline {
		if v, ok := x.Metrics[k]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", k, formatValue(v)))
		}
	}
	if len(parts) == 0 && len(x.Metrics) > 0 {
		keys := slices.Sorted(maps.Keys(x.Metrics))
		for _, k := range keys[:min(len(keys), 8)] {
			parts = append(parts, fmt.Sprintf("%s %s", k, formatValue(x.Metrics[k])))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  %s\n", strings.Join(parts, ", "))
	}
}

func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) && a < 1e15:
		return fmt.Sprintf("%d", int64(v))
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// WriteList prints records as a table, oldest first.
func WriteList(w io.Writer, entries []bench.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATUS\tFAILED\tPROFILE\tFINGERPRINT\tWORKLOADS\tHEADLINE")
	for _, e := range entries {
		if e.Err != "" {
			fmt.Fprintf(tw, "%s\t-\tunreadable\t-\t-\t-\t-\t%s\n", e.ID, e.Err)
			continue
		}
		failed := "-"
		if e.Requests > 0 {
			failed = fmt.Sprintf("%d/%d", e.FailedRequests, e.Requests)
		}
		fp := short(e.Fingerprint)
		prof := e.Profile
		if prof == "" {
			prof = "(" + e.URL + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Started.In(displayZone).Format("2006-01-02 15:04:05"), e.Status, failed, prof, orDash(fp), orDash(strings.Join(e.Workloads, ",")), orDash(e.Headline))
	}
	return tw.Flush()
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteShow prints a record for people: what ran, where, and the results.
func WriteShow(w io.Writer, r *bench.Record) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "record\t%s  %s\n", r.ID, strings.ToUpper(r.Status))
	fmt.Fprintf(tw, "started\t%s (took %s)\n", r.Started.In(displayZone).Format("2006-01-02 15:04:05 MST"), r.Duration().Round(time.Second))
	if r.Error != "" {
		line, _, _ := strings.Cut(r.Error, "\n")
		fmt.Fprintf(tw, "error\t%s\n", line)
	}
	if r.Plan != nil {
		fmt.Fprintf(tw, "profile\t%s (%s), fingerprint %s\n", r.Profile, r.Plan.Source, short(r.Fingerprint))
		if r.PlanNote != "" {
			fmt.Fprintf(tw, "plan\t%s\n", r.PlanNote)
		}
	} else {
		fmt.Fprintf(tw, "profile\t%s\n", orDash(r.PlanNote))
	}
	how := "launched by sglaunch"
	if !r.Launched {
		how = "already running"
	}
	fmt.Fprintf(tw, "server\t%s (%s)\n", r.URL, how)
	if o := r.Observed; o != nil {
		fmt.Fprintf(tw, "observed\tpid %d (%s): %s\n", o.ServerPID, o.How, strings.Join(o.Argv, " "))
	}
	sg := orDash(r.SGLang)
	if r.SGLangFrom != "" {
		sg += " (" + r.SGLangFrom + ")"
	}
	fmt.Fprintf(tw, "versions\tsglaunch %s, sglang %s\n", r.Sglaunch, sg)
	h := r.Host
	fmt.Fprintf(tw, "host\t%s: %s, %d CPUs, %.1f GiB; GPUs: %s\n", h.Hostname, orDash(h.CPU), h.CPUs, h.MemoryGiB, h.GPUSummary())
	if s := r.Server; s != nil {
		// In the order they happened, also for records written before
		// phases were kept in that order (issue 24).
		ordered := slices.Clone(s.Phases)
		slices.SortStableFunc(ordered, func(a, b health.Phase) int { return cmp.Compare(a.At, b.At) })
		var phases []string
		for _, p := range ordered {
			phases = append(phases, fmt.Sprintf("%s %.1fs", p.Name, p.At.Seconds()))
		}
		if !s.ReadyAt.IsZero() {
			line := fmt.Sprintf("%.1fs", s.Seconds)
			if len(phases) > 0 {
				line += " (" + strings.Join(phases, ", ") + ")"
			}
			fmt.Fprintf(tw, "load time\t%s\n", line)
		}
		if spans, from := s.Breakdown(); len(spans) > 0 {
			var parts []string
			for _, sp := range spans {
				parts = append(parts, fmt.Sprintf("%s %.1fs", sp.Name, sp.Seconds))
			}
			fmt.Fprintf(tw, "load phases\t%s (from %s)\n", strings.Join(parts, ", "), from)
		}
		if s.Stop != "" {
			fmt.Fprintf(tw, "stop\t%s\n", s.Stop)
		}
		if s.Log != "" {
			fmt.Fprintf(tw, "server log\t%s\n", s.Log)
		}
	}
	if r.Plan != nil {
		fmt.Fprintf(tw, "argv\t%s\n", strings.Join(r.Plan.Argv, " "))
		var env []string
		for _, k := range r.Plan.EnvOrder {
			env = append(env, k+"="+r.Plan.Env[k])
		}
		if len(env) > 0 {
			fmt.Fprintf(tw, "env\t%s\n", strings.Join(env, " "))
		}
	}
	if len(r.Argv) > 0 {
		fmt.Fprintf(tw, "command\t%s\n", strings.Join(r.Argv, " "))
	}
	if len(r.Speculative) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(r.Speculative)) {
			kv = append(kv, fmt.Sprintf("%s=%v", strings.TrimPrefix(k, "speculative_"), r.Speculative[k]))
		}
		fmt.Fprintf(tw, "speculative\t%s\n", strings.Join(kv, " "))
	}
	if r.Details != "" {
		fmt.Fprintf(tw, "details\t%s (one line per request, beside the record)\n", r.Details)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Results) > 0 {
		fmt.Fprintln(w)
	}
	return WriteResults(w, r)
}
