package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// recordPlan returns the plan stored with a bench record and a label.
func (e *env) recordPlan(c *cli.Context, id string) (plan.View, string, error) {
	store, err := e.recordStore(c)
	if err != nil {
		return plan.View{}, "", err
	}
	rec, err := store.Get(id)
	if err != nil {
		return plan.View{}, "", err
	}
	if rec.Plan == nil {
		return plan.View{}, "", inputerr.Errorf("record %s benchmarked %s without a known plan (a --url run of a server sglaunch did not start); compare against a profile instead", rec.ID, rec.URL)
	}
	return *rec.Plan, "record " + rec.ID, nil
}
