package tune

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// Sorted lists the points best first by objective: the measured ones,
// then the failed, then those without a result, in point order.
func (r *Record) Sorted() []*Point {
	out := append([]*Point(nil), r.Points...)
	rank := func(p *Point) int {
		switch {
		case usable(p):
			return 0
		case p.Status == PointFailed:
			return 1
		}
		return 2
	}
	o := r.Space.Objective
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		if rank(a) == 0 && a.Objective.Mean != b.Objective.Mean {
			return o.Better(a.Objective.Mean, b.Objective.Mean)
		}
		return a.N < b.N
	})
	return out
}

// WriteShow prints the tune: what it searched, every point best first
// with its objective's interval and its verdict against the baseline,
// the failures with their phase, the points not run, the timing and the
// verdict.
func WriteShow(w io.Writer, r *Record) error {
	o := r.Space.Objective
	fmt.Fprintf(w, "tune %s (%s), base %s, strategy %s, %d session(s)\n", r.ID, r.Status, r.Base, orText(r.Strategy, "grid"), r.Sessions)
	fmt.Fprintf(w, "space: %s\n", r.Space.Describe())
	if len(r.Space.Constraints) > 0 {
		var cs []string
		for _, c := range r.Space.Constraints {
			cs = append(cs, c.String())
		}
		fmt.Fprintf(w, "constraints: %s\n", strings.Join(cs, ", "))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "POINT\tSTATUS\t%s\t95%% INTERVAL\tROUNDS\tVS BASELINE\tSETTINGS\n", strings.ToUpper(o.Metric))
	for _, p := range r.Sorted() {
		c := pointCells(p)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", p.N, c.status, c.obj, c.interval, c.rounds, c.vs, p.Label())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range r.Points {
		switch {
		case p.Status == PointFailed:
			fmt.Fprintf(w, "\npoint %d failed: %s\n", p.N, p.Reason)
			for _, l := range p.Tail {
				fmt.Fprintf(w, "  | %s\n", l)
			}
		case p.Raced != "":
			fmt.Fprintf(w, "point %d: %s\n", p.N, p.Raced)
		}
	}
	var reused []string
	for _, p := range r.Points {
		if p.Status == PointReused {
			reused = append(reused, fmt.Sprintf("%d (record %s)", p.N, strings.Join(p.Records, ", ")))
		}
	}
	if len(reused) > 0 {
		fmt.Fprintf(w, "\nreused, not run again: %s\n", strings.Join(reused, "; "))
	}
	if r.Note != "" {
		fmt.Fprintf(w, "\n%s\n", r.Note)
	}
	tm := r.Timing
	if tm.TaskSeconds > 0 {
		fmt.Fprintf(w, "\njob array: %.1fs in its tasks, all together", tm.TaskSeconds)
	}
	fmt.Fprintf(w, "\ntime: %.1fs wall, %.1fs the servers' loads, workloads and stops, %.1fs sglaunch's overhead (%.2fs a launch); %d launches, %d rounds run\n",
		tm.WallSeconds, tm.PointSeconds, tm.OverheadSeconds, tm.PerPointSeconds, tm.Launches, tm.Rounds)
	if v := r.Verdict; v != nil {
		fmt.Fprintf(w, "\n%s\n", v.Text)
		if v.Profile != "" {
			fmt.Fprintf(w, "profile written: %s\n", v.Profile)
		}
	}
	_, err := fmt.Fprintf(w, "record: %s\n", r.Path())
	return err
}
