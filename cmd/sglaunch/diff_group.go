package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/verify"
)

// diffGroup compares the other operand with every rank of the
// multi-node server whose rank 0 one operand is: rank 0 as observed
// here, every worker as its sglaunch observed itself.
func (e *env) diffGroup(c *cli.Context, opA, opB operand) error {
	if (opA.target == nil) == (opB.target == nil) {
		return inputerr.Errorf("diff --group: want one running deployment (running, pid:, port:, unit:) and one plan (a profile or a record)")
	}
	if err := e.readOperands(c, &opA, &opB, true); err != nil {
		return err
	}
	dep, depFirst := opA, true
	if opA.target == nil {
		dep, depFirst = opB, false
	}
	ranks := []operand{{heading: verify.Heading{Label: "rank 0 (" + dep.heading.Label + ")"}, obs: dep.obs}}
	for _, r := range dep.dep.Ranks {
		if r.Err != nil {
			return fmt.Errorf("diff --group: rank %d on %s: %w", r.Rank, r.Node, r.Err)
		}
		ranks = append(ranks, operand{heading: verify.Heading{Label: fmt.Sprintf("rank %d on %s", r.Rank, r.Node)}, obs: r.Observed})
	}
	differs := false
	var all []map[string]any // --json: one document, a comparison per rank
	for i, r := range ranks {
		a, b := r, opB
		if !depFirst {
			a, b = opA, r
		}
		rows := judge(a, b)
		differs = differs || verify.PerfDiffers(rows)
		if c.Bool("json") {
			d := diffJSON(a.heading, b.heading, rows)
			d["rank"] = 0
			if i > 0 {
				d["rank"] = dep.dep.Ranks[i-1].Rank
			}
			all = append(all, d)
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if err := verify.WriteDiff(e.stdout, a.heading, b.heading, rows); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		if err := writeJSON(e.stdout, map[string]any{"ranks": all}); err != nil {
			return err
		}
	}
	if differs {
		return &cliflow.Exit{Code: 1}
	}
	return nil
}
