package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/loadgen"
)

// WriteReport writes one self-contained HTML page that sets records side
// by side: per workload, throughput and latency (median solid, p99
// dashed) against concurrency or request rate, and the TTFT and ITL
// distributions at the highest level the records share, one colour per
// record. A distribution comes from the record's --details file when it
// has one, else from its percentiles.
func WriteReport(w io.Writer, recs []*bench.Record) error {
	var b strings.Builder
	b.WriteString(reportHead)
	b.WriteString("<h1>sglaunch bench report</h1>\n")
	b.WriteString(`<table class="records"><tr><th></th><th>record</th><th>started</th><th>profile</th><th>fingerprint</th><th>sglang</th><th>speculative</th><th>status</th></tr>` + "\n")
	for i, r := range recs {
		prof := r.Profile
		if prof == "" {
			prof = "(" + r.URL + ")"
		}
		spec := "-"
		if alg, ok := r.Speculative["speculative_algorithm"]; ok {
			spec = fmt.Sprint(alg)
		}
		fmt.Fprintf(&b, `<tr><td><span class="swatch" style="background:%s"></span></td><td class="id">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`+"\n",
			color(i), esc(r.ID), esc(r.Started.In(displayZone).Format("2006-01-02 15:04")), esc(prof), esc(orDash(short(r.Fingerprint))),
			esc(orDash(r.SGLang)), esc(spec), esc(r.Status))
	}
	b.WriteString("</table>\n")
	b.WriteString(`<p class="note">ITL is per token (each chunk's gap split among the tokens it brought, as bench_serving splits it); p99 lines are dashed.</p>` + "\n")

	dists := make([]map[string]*levelValues, len(recs))
	for i, r := range recs {
		dists[i] = loadDetails(r)
	}
	n := 0
	for _, name := range workloadNames(recs) {
		n++
		writeWorkloadSection(&b, n, name, recs, dists)
	}
	if n == 0 {
		b.WriteString(`<p class="empty">These records hold no generator results to chart.</p>` + "\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return html.EscapeString(s) }

func color(i int) string { return palette[i%len(palette)] }

// workloadNames lists the generator workloads of the records, in order of
// first appearance.
func workloadNames(recs []*bench.Record) []string {
	var out []string
	for _, r := range recs {
		for _, res := range r.Results {
			if len(res.Levels) > 0 && !slices.Contains(out, res.Workload.Name) {
				out = append(out, res.Workload.Name)
			}
		}
	}
	return out
}

func resultOf(r *bench.Record, name string) *bench.WorkloadResult {
	for i := range r.Results {
		if r.Results[i].Workload.Name == name && len(r.Results[i].Levels) > 0 {
			return &r.Results[i]
		}
	}
	return nil
}

// xOf places a level on the x axis: its request rate for an open loop,
// else its concurrency.
func xOf(l loadgen.Level) float64 {
	if l.Rate > 0 {
		return l.Rate
	}
	return float64(l.Concurrency)
}

func writeWorkloadSection(b *strings.Builder, n int, name string, recs []*bench.Record, dists []map[string]*levelValues) {
	var summary string
	open, closed := false, false
	for _, r := range recs {
		if res := resultOf(r, name); res != nil {
			if summary == "" {
				summary = res.Workload.Summary()
			}
			for _, l := range res.Levels {
				open, closed = open || l.Rate > 0, closed || l.Rate == 0
			}
		}
	}
	xLabel := "concurrency (streams)"
	switch {
	case open && closed:
		xLabel = "concurrency (streams) or request rate (req/s)"
	case open:
		xLabel = "request rate (req/s)"
	}
	fmt.Fprintf(b, `<section class="workload" data-workload="%s"><h2>%s</h2><p class="summary">%s</p><div class="charts">`+"\n", esc(name), esc(name), esc(summary))
	line := func(id, title, y string, get func(m loadgen.Metrics) (float64, float64, bool)) *chart {
		c := &chart{id: fmt.Sprintf("w%d-%s", n, id), title: title, xLabel: xLabel, yLabel: y, logX: true}
		for i, r := range recs {
			res := resultOf(r, name)
			if res == nil {
				continue
			}
			med := series{name: r.ID, color: color(i), record: r.ID}
			p99 := series{name: r.ID + " p99", color: color(i), record: r.ID, dashed: true}
			for _, l := range res.Levels {
				v, tail, hasTail := get(l.Metrics)
				x := xOf(l.Level)
				med.pts = append(med.pts, point{x, v, fmt.Sprintf("%s %s: %s", r.ID, l.Level, formatValue(v))})
				if hasTail {
					p99.pts = append(p99.pts, point{x, tail, fmt.Sprintf("%s %s p99: %s", r.ID, l.Level, formatValue(tail))})
				}
			}
			sortPoints(med.pts)
			sortPoints(p99.pts)
			c.series = append(c.series, med)
			if len(p99.pts) > 0 {
				c.series = append(c.series, p99)
			}
		}
		return c
	}
	charts := []*chart{
		line("throughput", "output throughput", "tokens/s", func(m loadgen.Metrics) (float64, float64, bool) { return m.OutputThroughput, 0, false }),
		line("ttft", "time to first token", "ms", func(m loadgen.Metrics) (float64, float64, bool) { return m.TTFT.Median, m.TTFT.P99, true }),
		line("itl", "inter-token latency (per token)", "ms", func(m loadgen.Metrics) (float64, float64, bool) { return m.ITL.Median, m.ITL.P99, true }),
		line("e2e", "end-to-end latency", "ms", func(m loadgen.Metrics) (float64, float64, bool) { return m.E2E.Median, m.E2E.P99, true }),
	}
	lvl, label := distLevel(recs, name)
	for _, k := range []struct{ id, title string }{{"ttft-dist", "TTFT distribution"}, {"itl-dist", "ITL distribution"}} {
		c := &chart{id: fmt.Sprintf("w%d-%s", n, k.id), title: k.title + " at " + label, xLabel: "ms", yLabel: "percentile", steps: true}
		for i, r := range recs {
			res := resultOf(r, name)
			if res == nil {
				continue
			}
			l := lvl[r.ID]
			if l == nil {
				continue
			}
			c.series = append(c.series, series{name: r.ID, color: color(i), record: r.ID, pts: distPoints(k.id, *l, dists[i][name+"\x00"+l.Level.String()])})
		}
		charts = append(charts, c)
	}
	for _, c := range charts {
		b.WriteString(c.svg())
		b.WriteByte('\n')
	}
	b.WriteString("</div></section>\n")
}

func sortPoints(p []point) { sort.SliceStable(p, func(i, j int) bool { return p[i].x < p[j].x }) }

// distLevel picks, per record, the level whose distributions are drawn:
// the highest level every record of the workload ran, else each one's
// highest. label names it.
func distLevel(recs []*bench.Record, name string) (map[string]*bench.LevelRecord, string) {
	count := map[loadgen.Level]int{}
	have := 0
	for _, r := range recs {
		if res := resultOf(r, name); res != nil {
			have++
			for _, l := range res.Levels {
				count[l.Level]++
			}
		}
	}
	var shared []loadgen.Level
	for l, n := range count {
		if n == have {
			shared = append(shared, l)
		}
	}
	sort.Slice(shared, func(i, j int) bool { return xOf(shared[i]) < xOf(shared[j]) })
	out := map[string]*bench.LevelRecord{}
	for _, r := range recs {
		res := resultOf(r, name)
		if res == nil {
			continue
		}
		for i := range res.Levels {
			l := &res.Levels[i]
			switch {
			case len(shared) > 0 && l.Level == shared[len(shared)-1]:
				out[r.ID] = l
			case len(shared) == 0 && (out[r.ID] == nil || xOf(l.Level) > xOf(out[r.ID].Level)):
				out[r.ID] = l
			}
		}
	}
	if len(shared) > 0 {
		return out, shared[len(shared)-1].String()
	}
	return out, "each record's highest level"
}

// maxDistPoints bounds the points of a drawn distribution.
const maxDistPoints = 240

// distPoints is a distribution as (ms, percentile) steps: every value's
// rank from the details, thinned, or else the level's percentiles.
func distPoints(kind string, l bench.LevelRecord, v *levelValues) []point {
	var vals []float64
	if v != nil {
		vals = v.ttft
		if kind == "itl-dist" {
			vals = v.itl
		}
	}
	if len(vals) > 0 {
		slices.Sort(vals)
		step := max(1, len(vals)/maxDistPoints)
		out := []point{{x: vals[0], y: 0}}
		for i := 0; i < len(vals); i += step {
			out = append(out, point{x: vals[i], y: float64(i+1) / float64(len(vals)) * 100})
		}
		last := vals[len(vals)-1]
		if out[len(out)-1].y < 100 {
			out = append(out, point{x: last, y: 100})
		}
		return out
	}
	d := l.Metrics.TTFT
	if kind == "itl-dist" {
		d = l.Metrics.ITL
	}
	if d.Max == 0 && d.Median == 0 {
		return nil
	}
	return []point{{x: d.Median, y: 50}, {x: d.P90, y: 90}, {x: d.P95, y: 95}, {x: d.P99, y: 99}, {x: max(d.Max, d.P99), y: 100}}
}

// levelValues are the TTFTs and per-token ITLs of one level's requests.
type levelValues struct{ ttft, itl []float64 }

// Bounds on what the report reads of a --details file: the values kept
// per level and kind, and one line (a request's ITL list).
const (
	maxDetailValues = 1 << 20
	maxDetailLine   = 16 << 20
)

// loadDetails reads a record's --details file, if it has one that can be
// found beside it: its successful requests' timings by workload and level.
func loadDetails(r *bench.Record) map[string]*levelValues {
	out := map[string]*levelValues{}
	if r.Details == "" || r.File() == "" {
		return out
	}
	f, err := os.Open(filepath.Join(filepath.Dir(r.File()), filepath.Base(r.Details)))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxDetailLine)
	for sc.Scan() {
		var line struct {
			Workload string    `json:"workload"`
			Level    string    `json:"level"`
			OK       bool      `json:"ok"`
			TTFT     float64   `json:"ttft_ms"`
			ITL      []float64 `json:"itl_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || !line.OK {
			continue
		}
		k := line.Workload + "\x00" + line.Level
		v := out[k]
		if v == nil {
			v = &levelValues{}
			out[k] = v
		}
		if len(v.ttft) < maxDetailValues {
			v.ttft = append(v.ttft, line.TTFT)
		}
		if len(v.itl)+len(line.ITL) <= maxDetailValues {
			v.itl = append(v.itl, line.ITL...)
		}
	}
	return out
}

const reportHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>sglaunch bench report</title>
<style>
body { font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 24px; color: #222; background: #fafafa; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 4px; }
table.records { border-collapse: collapse; font-size: 13px; background: #fff; }
table.records th, table.records td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 2px; }
.id { font-family: "DejaVu Sans Mono", monospace; }
.note, .summary { font-size: 13px; color: #555; margin: 6px 0; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
svg.chart { background: #fff; border: 1px solid #ddd; }
svg.chart text { font-size: 11px; fill: #333; }
svg.chart text.title { font-size: 13px; font-weight: bold; }
svg.chart text.label { font-size: 12px; }
</style>
</head>
<body>
`
