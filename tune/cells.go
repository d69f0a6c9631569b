package tune

import (
	"fmt"
	"strings"
)

// cells are a point's cells in show's table and report's: its
// objective's mean, 95 % interval and rounds ("-" without a result), its
// verdict against the baseline ("-" without one) and its status with the
// constraints it violates.
type cells struct {
	obj, interval, rounds, vs, status string
}

// pointCells fills the cells of p.
func pointCells(p *Point) cells {
	c := cells{obj: "-", interval: "-", rounds: "-", vs: "-", status: p.Status}
	if e := p.Objective; e != nil {
		c.obj = fmt.Sprintf("%.4g", e.Mean)
		c.interval = fmt.Sprintf("[%.4g, %.4g]", e.Lo, e.Hi)
		c.rounds = fmt.Sprint(e.N)
	}
	if d := p.VsBaseline; d != nil {
		c.vs = d.Text()
	}
	if len(p.Violates) > 0 {
		c.status += " (violates " + strings.Join(p.Violates, ", ") + ")"
	}
	return c
}
