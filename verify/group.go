package verify

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/plan"
)

// RankReport is one rank's verify in a group.
type RankReport struct {
	Rank int    `json:"rank"`
	Node string `json:"node"`
	*Report
	// Error says why the rank could not be checked (no observation).
	Error string `json:"error,omitempty"`
}

// GroupReport merges every rank's verify of a multi-node server: one
// table with the rank of each row.
type GroupReport struct {
	Expected Expected     `json:"expected"`
	Ranks    []RankReport `json:"ranks"`
	// Drift counts the perf-relevant rows that are not MATCH, over
	// every rank; Unchecked the ranks without an observation.
	Drift     int `json:"drift"`
	Unchecked int `json:"unchecked"`
}

// RunGroup reads every rank of the multi-node server whose rank 0 t
// names (here) and judges each against exp: rank 0 as this host observes
// it, every other rank as its own sglaunch observed itself.
func RunGroup(ctx context.Context, exp Expected, t Target) (*GroupReport, error) {
	t.Group = true
	d, err := Read(ctx, t, &exp)
	if err != nil {
		return nil, err
	}
	exp = Resolve(ctx, exp)
	g := &GroupReport{Expected: exp, Ranks: []RankReport{{Rank: 0, Node: "this host", Report: Compare(exp, d.Observed)}}}
	for _, o := range d.Ranks {
		rr := RankReport{Rank: o.Rank, Node: o.Node}
		if o.Err != nil {
			rr.Error = o.Err.Error()
		} else {
			rr.Report = Compare(exp, o.Observed)
		}
		g.Ranks = append(g.Ranks, rr)
	}
	for _, r := range g.Ranks {
		if r.Report == nil {
			g.Unchecked++
			continue
		}
		g.Drift += r.Drift
	}
	return g, nil
}

// OK reports whether every rank was checked and matches.
func (g *GroupReport) OK() bool { return g.Drift == 0 && g.Unchecked == 0 }

// WriteJSON writes the report as JSON.
func (g *GroupReport) WriteJSON(w io.Writer) error {
	return jsonout.Write(w, g)
}

// WriteText writes one table per group of settings with a RANK column,
// then the verdict.
func (g *GroupReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "expected: %s", g.Expected.Label)
	if g.Expected.Fingerprint != "" {
		fmt.Fprintf(w, " (fingerprint %s)", short(g.Expected.Fingerprint))
	}
	fmt.Fprintln(w)
	for _, r := range g.Ranks {
		switch {
		case r.Report == nil:
			fmt.Fprintf(w, "rank %d:   %s: not checked: %s\n", r.Rank, r.Node, r.Error)
		default:
			fmt.Fprintf(w, "rank %d:   %s: %s\n", r.Rank, r.Node, r.Observed.describe())
			for _, note := range r.Observed.notes() {
				fmt.Fprintf(w, "  note:   %s\n", note)
			}
		}
	}
	for _, grp := range []string{plan.Perf, plan.Neutral} {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		n := 0
		for _, r := range g.Ranks {
			if r.Report == nil {
				continue
			}
			for _, row := range r.Rows {
				if row.Group != grp {
					continue
				}
				if n == 0 {
					fmt.Fprintf(w, "\n%s\n", grp)
					fmt.Fprintln(tw, "RANK\tSTATUS\tSETTING\tEXPECTED\tOBSERVED\tWHERE")
				}
				n++
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Rank, row.Status, row.Setting, dash(row.A), dash(row.B), row.WhereText())
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	switch {
	case g.OK():
		_, err := fmt.Fprintf(w, "\nresult: MATCH: every perf-relevant setting is as expected on all %d ranks\n", len(g.Ranks))
		return err
	case g.Drift > 0:
		fmt.Fprintf(w, "\nresult: DRIFT: %d perf-relevant setting(s) differ from %s", g.Drift, g.Expected.Label)
		var ranks []string
		for _, r := range g.Ranks {
			if r.Report != nil && r.Drift > 0 {
				ranks = append(ranks, strconv.Itoa(r.Rank))
			}
		}
		fmt.Fprintf(w, " (rank %v)", ranks)
		if g.Unchecked > 0 {
			fmt.Fprintf(w, "; %d rank(s) not checked", g.Unchecked)
		}
		_, err := fmt.Fprintln(w)
		return err
	}
	_, err := fmt.Fprintf(w, "\nresult: INCOMPLETE: %d rank(s) could not be checked\n", g.Unchecked)
	return err
}
