package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/loadgen"
	"github.com/sglaunch/sglaunch/plan"
)

// Comparison sets two records side by side: B measured against A.
type Comparison struct {
	A, B *Record `json:"-"`
	// SamePlan is true when both plans are known and their fingerprints
	// (the perf-relevant settings), recomputed from the stored plans, are
	// equal.
	SamePlan bool `json:"same_plan"`
	// PlanNote says why the plans could not be compared.
	PlanNote    string        `json:"plan_note,omitempty"`
	Differences []plan.Row    `json:"differences"`
	Metrics     []MetricDelta `json:"metrics"`
}

// ContextGroup is the group of the rows that are not part of the plan
// but move numbers too: versions and the host.
const ContextGroup = "context"

// MetricDelta is one metric of one level in both runs.
type MetricDelta struct {
	Workload string  `json:"workload"`
	Level    string  `json:"level"`
	Metric   string  `json:"metric"`
	A        float64 `json:"a"`
	B        float64 `json:"b"`
	// DeltaPct is (B - A) / |A| in percent; HasDelta is false when A is 0.
	DeltaPct float64 `json:"delta_pct"`
	HasDelta bool    `json:"has_delta"`
	// RoundsA and RoundsB are how many rounds each side's level ran.
	RoundsA int `json:"rounds_a,omitempty"`
	RoundsB int `json:"rounds_b,omitempty"`
	// With two rounds or more on each side: a 95 % interval of the
	// difference of the rounds' means, in percent of A's mean (Welch's
	// t), the confidence that the means differ (1 - p), and the verdict:
	// faster or slower (B against A, by the metric's better direction)
	// when the interval excludes 0, else within noise.
	IntervalPct *[2]float64 `json:"interval_pct,omitempty"`
	Confidence  float64     `json:"confidence,omitempty"`
	Verdict     string      `json:"verdict,omitempty"`
}

// Compare compares record b against record a.
func Compare(a, b *Record) Comparison {
	c := Comparison{A: a, B: b, Differences: []plan.Row{}, Metrics: []MetricDelta{}}
	switch {
	case a.Plan == nil && b.Plan == nil:
		c.PlanNote = "neither plan is known (both runs benchmarked an already running server)"
	case a.Plan == nil:
		c.PlanNote = "the plan of A is unknown (it benchmarked an already running server)"
	case b.Plan == nil:
		c.PlanNote = "the plan of B is unknown (it benchmarked an already running server)"
	default:
		c.SamePlan = plan.FingerprintOf(*a.Plan) == plan.FingerprintOf(*b.Plan)
		c.Differences = planDifferences(*a.Plan, *b.Plan)
	}
	c.Differences = append(c.Differences, contextDifferences(a, b)...)
	c.Metrics = metricDeltas(a, b)
	return c
}

// planDifferences lists the settings on which two stored plans differ,
// by plan.Diff: the rule verify, diff and serve's "benchmarked:" line use.
func planDifferences(a, b plan.View) []plan.Row {
	var out []plan.Row
	for _, r := range plan.Diff(plan.SideOfView(a, "A"), plan.SideOfView(b, "B")) {
		if r.Kind == "python" || r.Kind == "module" {
			r.Kind = "setting"
		}
		out = append(out, r)
	}
	return out
}

func contextDifferences(a, b *Record) []plan.Row {
	var out []plan.Row
	for _, f := range []struct{ name, a, b string }{
		{"sglang version", a.SGLang, b.SGLang},
		{"sglaunch version", a.Sglaunch, b.Sglaunch},
		{"host", a.Host.Hostname, b.Host.Hostname},
		{"gpus", a.Host.GPUSummary(), b.Host.GPUSummary()},
		{"url", a.URL, b.URL},
	} {
		if f.a != f.b {
			r := plan.Row{Group: ContextGroup, Kind: "context", Setting: f.name, A: f.a, B: f.b, Status: plan.Different, InA: f.a != "", InB: f.b != ""}
			switch {
			case !r.InB:
				r.Status = plan.Missing
			case !r.InA:
				r.Status = plan.Extra
			}
			out = append(out, r)
		}
	}
	return out
}

// metricDeltas pairs workloads by name and levels by their label.
func metricDeltas(a, b *Record) []MetricDelta {
	out := []MetricDelta{}
	for _, wa := range a.Results {
		i := slices.IndexFunc(b.Results, func(w WorkloadResult) bool { return w.Workload.Name == wa.Workload.Name })
		if i < 0 {
			continue
		}
		wb := b.Results[i]
		if wa.External != nil && wb.External != nil {
			var names []string
			for k := range wa.External.Metrics {
				if _, ok := wb.External.Metrics[k]; ok {
					names = append(names, k)
				}
			}
			for _, k := range metricOrder(names) {
				out = append(out, delta(wa.Workload.Name, "-", k, wa.External.Metrics[k], wb.External.Metrics[k]))
			}
			continue
		}
		for _, la := range wa.Levels {
			j := slices.IndexFunc(wb.Levels, func(l LevelRecord) bool { return l.Level == la.Level })
			if j < 0 {
				continue
			}
			lb := wb.Levels[j]
			for _, k := range levelMetricNames {
				va, oka := levelMetric(la, k)
				vb, okb := levelMetric(lb, k)
				if oka && okb {
					d := delta(wa.Workload.Name, la.Level.String(), k, va, vb)
					judge(&d, roundValues(la, k), roundValues(lb, k))
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// levelMetricNames are the metrics of a generator level, in order.
var levelMetricNames = append(loadgen.MetricNames(), "accept_length")

func delta(workload, level, metric string, a, b float64) MetricDelta {
	d := MetricDelta{Workload: workload, Level: level, Metric: metric, A: a, B: b}
	switch {
	case a == b:
		d.HasDelta = true
	case a != 0:
		d.DeltaPct, d.HasDelta = (b-a)/math.Abs(a)*100, true
	}
	return d
}

// KeyMetrics are the metrics a text comparison shows unless asked for all.
var KeyMetrics = []string{"completed", "failed", "request_throughput", "output_throughput", "median_ttft_ms", "p99_ttft_ms", "median_itl_ms", "p99_itl_ms", "median_tpot_ms", "median_e2e_latency_ms", "decode_tok_s", "accept_length"}

// WriteComparison prints a comparison for people; all shows every metric.
func WriteComparison(w io.Writer, c Comparison, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, x := range []struct {
		tag string
		r   *Record
	}{{"A", c.A}, {"B", c.B}} {
		prof := x.r.Profile
		if prof == "" {
			prof = "(" + x.r.URL + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tfingerprint %s\t%s\n", x.tag, x.r.ID, x.r.Started.In(displayZone).Format("2006-01-02 15:04"), prof, orDash(short(x.r.Fingerprint)), x.r.Status)
	}
	tw.Flush()
	fmt.Fprintln(w)
	switch {
	case c.PlanNote != "":
		fmt.Fprintf(w, "plan: %s\n", c.PlanNote)
	case c.SamePlan:
		fmt.Fprintln(w, "plan: same perf-relevant settings (fingerprints match)")
	default:
		fmt.Fprintln(w, "plan: perf-relevant settings differ")
	}
	if len(c.Differences) > 0 {
		t := &table{indent: "  ", left: 3}
		t.add("", "A", "B")
		for _, d := range c.Differences {
			name := d.Setting
			switch d.Kind {
			case "env":
				name = "env " + name
			case "context":
				name = "(" + name + ")"
			}
			if d.Group == plan.Neutral {
				name += " (perf-neutral)"
			}
			t.add(name, side(d.A, d.InA, d.Kind), side(d.B, d.InB, d.Kind))
		}
		if err := t.write(w); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	if len(c.Metrics) == 0 {
		fmt.Fprintln(w, "no workload and level ran in both records")
		return nil
	}
	judged := slices.ContainsFunc(c.Metrics, func(m MetricDelta) bool { return m.IntervalPct != nil })
	t := &table{left: 3}
	head := []string{"workload", "level", "metric", "A", "B", "delta"}
	if judged {
		head = append(head, "95% interval", "verdict")
	}
	t.add(head...)
	for _, m := range c.Metrics {
		if !all && !slices.Contains(KeyMetrics, m.Metric) {
			continue
		}
		d := "n/a"
		if m.HasDelta {
			d = fmt.Sprintf("%+.1f%%", m.DeltaPct)
		}
		row := []string{m.Workload, m.Level, m.Metric, formatValue(m.A), formatValue(m.B), d}
		if judged {
			row = append(row, intervalText(m), verdictText(m))
		}
		t.add(row...)
	}
	if err := t.write(w); err != nil {
		return err
	}
	if judged {
		fmt.Fprintln(w, "\nintervals and verdicts come from the rounds of each level (Welch's t-test, 95 %); a level of one round has none")
	}
	return nil
}

func side(v string, present bool, kind string) string {
	if !present {
		return "(unset)"
	}
	if v == "" && kind == "flag" {
		return "(on)"
	}
	return v
}
