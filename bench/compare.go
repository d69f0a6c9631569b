package bench

import (
	"math"
	"slices"

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
	// The metric's own 95 % interval of B - A, in percent of A, centred on
	// its delta with the noise of its own values in each round (Welch's t;
	// absent with fewer than two rounds on a side), the confidence that B
	// and A differ (1 - p), and the verdict that follows the interval:
	// faster or slower (by the metric's better direction) when it excludes
	// 0, within noise when it holds 0, too few rounds to judge with fewer
	// than 3 rounds on either side (see judge).
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
