package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/launcher"
)

// recordPlan returns the plan stored with a bench record and a label.
func (e *env) recordPlan(c *cli.Context, id string) (launcher.View, string, error) {
	return launcher.View{}, "", inputerr.Errorf("record %s: bench records are not available yet", id)
}
