package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/verify"
)

// diffGroup compares the other operand with every rank of the
// multi-node server whose rank 0 one operand is: rank 0 as observed
// here, every worker as its sglaunch observed itself.
func (e *env) diffGroup(c *cli.Context, opA, opB operand) error {
	dep, other, depFirst := opA, opB, true
	if opA.obs == nil {
		dep, other, depFirst = opB, opA, false
	}
	if dep.obs == nil || other.obs != nil {
		return inputerr.Errorf("diff --group: want one running deployment (running, pid:, port:, unit:) and one plan (a profile or a record)")
	}
	items, err := workerObservations(c.Context, "diff --group", dep.label, dep.state)
	if err != nil {
		return err
	}
	ranks := []operand{{obs: dep.obs, label: "rank 0 (" + dep.label + ")", state: dep.state}}
	for _, it := range items {
		o, err := verify.WorkerObservation(it)
		if err != nil {
			return fmt.Errorf("diff --group: rank %d on %s: %w", it.Rank, it.Node, err)
		}
		ranks = append(ranks, operand{obs: o, label: fmt.Sprintf("rank %d on %s", it.Rank, it.Node)})
	}
	differs := false
	var all []map[string]any // --json: one document, a comparison per rank
	for i, r := range ranks {
		a, b := r, other
		if !depFirst {
			a, b = other, r
		}
		sa, sb, rows := diffOf(c, a, b)
		differs = differs || verify.PerfDiffers(rows)
		if c.Bool("json") {
			d := diffJSON(sa, sb, rows)
			d["rank"] = i
			if i > 0 {
				d["rank"] = items[i-1].Rank
			}
			all = append(all, d)
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if err := verify.WriteDiff(e.stdout, sa, sb, rows); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		if err := writeJSON(e.stdout, map[string]any{"ranks": all}); err != nil {
			return err
		}
	}
	if differs {
		return &statusError{code: 1}
	}
	return nil
}
