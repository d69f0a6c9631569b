package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sglaunch/sglaunch/group"
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

// RunGroup verifies rank 0, located here (l, as Locate found it for t),
// and every other rank from the observation its sglaunch sent
// (group.ObserveAll's items).
func RunGroup(ctx context.Context, exp Expected, t Target, l *Located, observed []group.Observed) (*GroupReport, error) {
	r0, err := runLocated(ctx, exp, t, l)
	if err != nil {
		return nil, fmt.Errorf("rank 0: %w", err)
	}
	exp = r0.Expected
	g := &GroupReport{Expected: exp, Ranks: []RankReport{{Rank: 0, Node: "this host", Report: r0}}}
	for _, o := range observed {
		rr := RankReport{Rank: o.Rank, Node: o.Node}
		if obs, err := WorkerObservation(o); err != nil {
			rr.Error = err.Error()
		} else {
			rr.Report = Compare(exp, obs)
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

// WorkerObservation reads one worker's observation as rank 0 relayed
// it; the error says why there is none.
func WorkerObservation(o group.Observed) (*Observation, error) {
	if o.Error != "" {
		return nil, errors.New(o.Error)
	}
	var obs Observation
	if err := json.Unmarshal(o.Data, &obs); err != nil {
		return nil, fmt.Errorf("its observation is unreadable: %w", err)
	}
	return &obs, nil
}

// OK reports whether every rank was checked and matches.
func (g *GroupReport) OK() bool { return g.Drift == 0 && g.Unchecked == 0 }

// WriteJSON writes the report as JSON.
func (g *GroupReport) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
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
	for _, grp := range []string{Perf, Neutral} {
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
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.Rank, row.Status, row.Setting, dash(row.Expected), dash(row.Observed), row.whereText())
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
