package tune

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// WriteReport writes the tune as one self-contained HTML page: the
// verdict, every measured point's objective with its 95 % interval,
// sorted best first, against the baseline's, each parameter's effect
// (the mean objective of the points with each value) and the failures.
func WriteReport(w io.Writer, r *Record) error {
	var b strings.Builder
	o := r.Space.Objective
	esc := html.EscapeString
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>sglaunch tune %s</title>\n", esc(r.ID))
	b.WriteString(`<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:1em 0}td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:left;font-size:.9em}
th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{padding:.6em 1em;background:#eef6ee;border-left:4px solid #4a4}.none{background:#f6f3ea;border-left-color:#c93}
pre{background:#f7f7f7;padding:.5em;font-size:.8em;overflow-x:auto}svg text{font-size:11px;font-family:system-ui,sans-serif}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>tune %s</h1>\n", esc(r.ID))
	fmt.Fprintf(&b, "<p>base <code>%s</code>, strategy %s, status %s; %s.</p>\n", esc(r.Base), esc(orText(r.Strategy, "grid")), esc(r.Status), esc(r.Space.Describe()))
	if v := r.Verdict; v != nil {
		cls := "verdict"
		if v.Winner < 0 {
			cls += " none"
		}
		fmt.Fprintf(&b, "<p class=\"%s\" id=\"verdict\">%s", cls, esc(v.Text))
		if v.Profile != "" {
			fmt.Fprintf(&b, "<br>profile: <code>%s</code>", esc(v.Profile))
		}
		b.WriteString("</p>\n")
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", esc(r.Note))
	}
	sorted := r.Sorted()
	var measured []*Point
	for _, p := range sorted {
		if usable(p) {
			measured = append(measured, p)
		}
	}
	fmt.Fprintf(&b, "<h2>%s by point (%s), 95 %% interval</h2>\n", esc(o.Metric), o.DirectionText())
	b.WriteString(intervalChart(measured, r.Points[0]))
	b.WriteString("<table id=\"points\"><tr><th>point</th><th>status</th><th class=num>" + esc(o.Metric) + "</th><th>95 % interval</th><th class=num>rounds</th><th>vs baseline</th><th>settings</th></tr>\n")
	for _, p := range sorted {
		c := pointCells(p)
		if p.Raced != "" {
			c.status += "; " + p.Raced
		}
		fmt.Fprintf(&b, "<tr><td class=num>%d</td><td>%s</td><td class=num>%s</td><td>%s</td><td class=num>%s</td><td>%s</td><td><code>%s</code></td></tr>\n",
			p.N, esc(c.status), c.obj, c.interval, c.rounds, esc(c.vs), esc(p.Label()))
	}
	b.WriteString("</table>\n<h2>Each parameter's effect</h2>\n<p>The mean of the points measured with each value (the baseline aside).</p>\n")
	for _, par := range r.Space.Params {
		b.WriteString(effectChart(r, par))
	}
	var failed []*Point
	for _, p := range r.Points {
		if p.Status == PointFailed {
			failed = append(failed, p)
		}
	}
	if len(failed) > 0 {
		b.WriteString("<h2>Failures</h2>\n")
		for _, p := range failed {
			fmt.Fprintf(&b, "<h3>point %d <code>%s</code></h3><p>%s</p>\n", p.N, esc(p.Label()), esc(p.Reason))
			if len(p.Tail) > 0 {
				fmt.Fprintf(&b, "<pre>%s</pre>\n", esc(strings.Join(p.Tail, "\n")))
			}
		}
	}
	tm := r.Timing
	fmt.Fprintf(&b, "<p>time: %.1f s wall, %.1f s in the points' loads and workloads, %.1f s overhead; %d launches, %d rounds run.</p>\n</body></html>\n",
		tm.WallSeconds, tm.PointSeconds, tm.OverheadSeconds, tm.Launches, tm.Rounds)
	_, err := io.WriteString(w, b.String())
	return err
}

// intervalChart draws one row per point: its interval as a bar, its mean
// as a dot, the baseline's mean as a dashed line.
func intervalChart(points []*Point, base *Point) string {
	if len(points) == 0 {
		return "<p>No point was measured.</p>\n"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		lo, hi = math.Min(lo, p.Objective.Lo), math.Max(hi, p.Objective.Hi)
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.05
	lo, hi = lo-pad, hi+pad
	const left, width, row = 330, 520, 18
	height := len(points)*row + 40
	x := func(v float64) float64 { return left + (v-lo)/(hi-lo)*width }
	var b strings.Builder
	fmt.Fprintf(&b, "<svg id=\"objective-chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", left+width+20, height, left+width+20, height)
	for i, p := range points {
		y := 20 + i*row
		color := "#3a6ea5"
		if p.N == 0 {
			color = "#555"
		}
		label := fmt.Sprintf("%d %s", p.N, p.Label())
		if len(label) > 52 {
			label = label[:51] + "…"
		}
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left-8, y+4, html.EscapeString(label))
		fmt.Fprintf(&b, "<line class=\"interval\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"4\" stroke-opacity=\"0.45\"/>\n", x(p.Objective.Lo), x(p.Objective.Hi), y, y, color)
		fmt.Fprintf(&b, "<circle class=\"mean\" cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"><title>%.4g [%.4g, %.4g]</title></circle>\n", x(p.Objective.Mean), y, color, p.Objective.Mean, p.Objective.Lo, p.Objective.Hi)
	}
	if usable(base) {
		bx := x(base.Objective.Mean)
		fmt.Fprintf(&b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"8\" y2=\"%d\" stroke=\"#a33\" stroke-dasharray=\"4 3\"/>\n", bx, bx, height-24)
	}
	axisY := height - 14
	for _, v := range []float64{lo + pad, (lo + hi) / 2, hi - pad} {
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.4g</text>\n", x(v), axisY, v)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// effectChart draws a parameter's values as bars of the mean objective of
// the points that had them.
func effectChart(r *Record, par Param) string {
	type agg struct {
		sum float64
		n   int
	}
	vals := map[string]*agg{}
	for _, p := range r.Points {
		if p.N == 0 || !usable(p) {
			continue
		}
		for _, s := range p.Sets {
			k, v, _ := strings.Cut(s, "=")
			if k == par.Key {
				if vals[v] == nil {
					vals[v] = &agg{}
				}
				vals[v].sum += p.Objective.Mean
				vals[v].n++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<h3><code>%s</code></h3>\n", html.EscapeString(par.Key))
	maxV := 0.0
	for _, a := range vals {
		maxV = math.Max(maxV, a.sum/float64(a.n))
	}
	if maxV == 0 {
		return b.String() + "<p>No point with this parameter was measured.</p>\n"
	}
	const left, width, row = 160, 420, 18
	height := len(par.Values)*row + 10
	fmt.Fprintf(&b, "<svg class=\"effect\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", left+width+80, height, left+width+80, height)
	for i, v := range par.Values {
		y := 4 + i*row
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left-6, y+11, html.EscapeString(v))
		a := vals[v]
		if a == nil {
			fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\">not measured</text>\n", left+4, y+11)
			continue
		}
		m := a.sum / float64(a.n)
		fmt.Fprintf(&b, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#3a6ea5\"/>\n", left, y, m/maxV*width, row-4)
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%d\">%.4g (%d)</text>\n", float64(left)+m/maxV*width+4, y+11, m, a.n)
	}
	b.WriteString("</svg>\n")
	return b.String()
}
