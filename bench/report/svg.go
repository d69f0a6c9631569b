package report

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Charts of the report, drawn as inline SVG: no script, no fonts or
// styles from elsewhere, so the file is whole on its own.

// palette colours one record each, in order (colour-blind-safe Tableau
// colours); records beyond it repeat them.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

type point struct {
	x, y  float64
	label string // the point's tooltip
}

type series struct {
	name   string
	color  string
	dashed bool
	record string
	pts    []point
}

// chart is one plot: series of points against a shared x axis.
type chart struct {
	id, title, xLabel, yLabel string
	// logX spaces x by powers (concurrency 1, 8, 32, 128).
	logX bool
	// steps draws each series as a step function (a distribution).
	steps  bool
	series []series
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH                     = 480.0, 300.0
	marginL, marginR, marginT, marginB = 62.0, 16.0, 34.0, 76.0
)

func (c *chart) hasData() bool {
	for _, s := range c.series {
		if len(s.pts) > 0 {
			return true
		}
	}
	return false
}

// bounds are the data's extent, y from 0.
func (c *chart) bounds() (x0, x1, y1 float64) {
	x0, x1 = math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for _, p := range s.pts {
			x0, x1, y1 = min(x0, p.x), max(x1, p.x), max(y1, p.y)
		}
	}
	if c.logX && x0 <= 0 {
		c.logX = false
	}
	if !c.logX && !c.steps {
		x0 = min(x0, 0)
	}
	if x1 <= x0 {
		x0, x1 = x0-1, x1+1
		if c.logX {
			x0, x1 = x0/2+0.5, x1*2
		}
	}
	if y1 <= 0 {
		y1 = 1
	}
	return x0, x1, y1
}

// niceTicks returns round tick values covering [0, hi] or [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	span := hi - lo
	if span <= 0 {
		return []float64{lo}
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func tickText(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 10000:
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	case a >= 100 || v == math.Trunc(v):
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// svg draws the chart.
func (c *chart) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="%s" data-series="%d" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		c.id, len(c.series), chartW, chartH, chartW, chartH, html.EscapeString(c.title))
	fmt.Fprintf(&b, `<rect class="bg" x="0" y="0" width="%g" height="%g" fill="#fff"/>`, chartW, chartH)
	fmt.Fprintf(&b, `<text class="title" x="%g" y="20" text-anchor="middle">%s</text>`, chartW/2, html.EscapeString(c.title))
	if !c.hasData() {
		fmt.Fprintf(&b, `<text class="empty" x="%g" y="%g" text-anchor="middle">no data</text></svg>`, chartW/2, chartH/2)
		return b.String()
	}
	x0, x1, y1 := c.bounds()
	yt := niceTicks(0, y1*1.05, 5)
	ytop := max(yt[len(yt)-1], y1)
	pw, ph := chartW-marginL-marginR, chartH-marginT-marginB
	fx := func(x float64) float64 {
		if c.logX {
			return marginL + (math.Log(x)-math.Log(x0))/(math.Log(x1)-math.Log(x0))*pw
		}
		return marginL + (x-x0)/(x1-x0)*pw
	}
	fy := func(y float64) float64 { return marginT + ph - y/ytop*ph }

	// Grid and y axis.
	for _, v := range yt {
		y := fy(v)
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, marginL, y, marginL+pw, y)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%s</text>`, marginL-6, y+4, tickText(v))
	}
	// x ticks: the data's own x values on a log axis, round ones else.
	var xt []float64
	if c.logX {
		seen := map[float64]bool{}
		for _, s := range c.series {
			for _, p := range s.pts {
				if !seen[p.x] {
					seen[p.x] = true
					xt = append(xt, p.x)
				}
			}
		}
		sort.Float64s(xt)
	} else {
		xt = niceTicks(x0, x1, 6)
	}
	for _, v := range xt {
		x := fx(v)
		fmt.Fprintf(&b, `<line class="xtick" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`, x, marginT+ph, x, marginT+ph+4)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, x, marginT+ph+16, tickText(v))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`, marginL, marginT+ph, marginL+pw, marginT+ph)
	fmt.Fprintf(&b, `<line class="axis" x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>`, marginL, marginT, marginL, marginT+ph)
	fmt.Fprintf(&b, `<text class="label" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, marginL+pw/2, marginT+ph+32, html.EscapeString(c.xLabel))
	fmt.Fprintf(&b, `<text class="label" transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`, marginT+ph/2, html.EscapeString(c.yLabel))

	// Series, then the legend below the plot.
	for _, s := range c.series {
		if len(s.pts) == 0 {
			continue
		}
		var d strings.Builder
		for i, p := range s.pts {
			x, y := fx(p.x), fy(p.y)
			switch {
			case i == 0:
				fmt.Fprintf(&d, "M%.1f %.1f", x, y)
			case c.steps:
				fmt.Fprintf(&d, "H%.1fV%.1f", x, y)
			default:
				fmt.Fprintf(&d, "L%.1f %.1f", x, y)
			}
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<path class="series" data-record="%s" data-points="%d" d="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`,
			html.EscapeString(s.record), len(s.pts), d.String(), s.color, dash)
		if !c.steps {
			for _, p := range s.pts {
				fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`, fx(p.x), fy(p.y), s.color, html.EscapeString(p.label))
			}
		}
	}
	lx, ly := marginL, marginT+ph+50.0
	for _, s := range c.series {
		name := s.name
		if len(name) > 28 {
			name = name[:27] + "…"
		}
		w := 40 + float64(len([]rune(name)))*6.8
		if lx+w > chartW-marginR && lx > marginL {
			lx, ly = marginL, ly+16
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<line class="legend" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"%s/>`, lx, ly-4, lx+20, ly-4, s.color, dash)
		fmt.Fprintf(&b, `<text class="legend" x="%.1f" y="%.1f">%s</text>`, lx+24, ly, html.EscapeString(name))
		lx += w
	}
	b.WriteString(`</svg>`)
	return b.String()
}
