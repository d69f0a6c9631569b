package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// recordWithPlan returns a bench record whose plan is known (rec.Plan
// is set) and its label.
func (e *env) recordWithPlan(c *cli.Context, id string) (*bench.Record, string, error) {
	rec, err := e.record(c, id)
	if err != nil {
		return nil, "", err
	}
	if rec.Plan == nil {
		return nil, "", inputerr.Errorf("record %s benchmarked %s without a known plan (a --url run of a server sglaunch did not start); compare against a profile instead", rec.ID, rec.URL)
	}
	return rec, "record " + rec.ID, nil
}
