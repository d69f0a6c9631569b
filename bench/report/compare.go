package report

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/plan"
)

// WriteComparison prints a comparison for people; all shows every metric.
func WriteComparison(w io.Writer, c bench.Comparison, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, x := range []struct {
		tag string
		r   *bench.Record
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
	judged := slices.ContainsFunc(c.Metrics, func(m bench.MetricDelta) bool { return m.IntervalPct != nil })
	t := &table{left: 3}
	head := []string{"workload", "level", "metric", "A", "B", "delta"}
	if judged {
		head = append(head, "95% interval", "verdict")
	}
	t.add(head...)
	for _, m := range c.Metrics {
		if !all && !slices.Contains(bench.KeyMetrics, m.Metric) {
			continue
		}
		d := "n/a"
		if m.HasDelta {
			d = fmt.Sprintf("%+.1f%%", m.DeltaPct)
		}
		row := []string{m.Workload, m.Level, m.Metric, formatValue(m.A), formatValue(m.B), d}
		if judged {
			row = append(row, m.IntervalText(), m.VerdictText())
		}
		t.add(row...)
	}
	if err := t.write(w); err != nil {
		return err
	}
	if judged {
		fmt.Fprintln(w, "\neach metric's interval comes from its own values in each round of the level (Welch's t-test, 95 %), centred on its delta;\nthe verdict follows it; with fewer than 3 rounds on a side there is too little to judge, and with one round no interval")
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
