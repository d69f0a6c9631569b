package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

// recordExpected is a bench record's plan, whose plan must be known, as
// verify expects it (labelled "record ID", with the SGLang that was
// benchmarked), and as plan.Diff compares it.
func (e *env) recordExpected(c *cli.Context, id string) (verify.Expected, plan.Side, error) {
	rec, err := e.record(c, id)
	if err != nil {
		return verify.Expected{}, plan.Side{}, err
	}
	if rec.Plan == nil {
		return verify.Expected{}, plan.Side{}, inputerr.Errorf("record %s benchmarked %s without a known plan (a --url run of a server sglaunch did not start); compare against a profile instead", rec.ID, rec.URL)
	}
	label := "record " + rec.ID
	exp := verify.FromView(*rec.Plan, label, true)
	exp.SGLang = rec.SGLang
	return exp, plan.SideOfView(*rec.Plan, label), nil
}
