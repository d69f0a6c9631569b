package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/preflight"
)

// Flags of the checks serve and bench run before a model load.
var (
	skipPreflightFlag = &cli.BoolFlag{Name: "skip-preflight", Usage: "launch without running preflight first (the Python start-up check still runs)"}
	allowSiteFlag     = &cli.BoolFlag{Name: "allow-site-overrides", Usage: "warn instead of refusing to start when Python's site hooks (sitecustomize, usercustomize, .pth) change a managed variable"}
)

// printPlan prints the effective config as serve and bench start, then,
// each on a line of its own, the drops that change which GPUs the server
// uses: one line in a 60-line dump is easily missed.
func (e *env) printPlan(p *plan.Plan, log *slog.Logger) {
	if logging.IsJSON(log) {
		// One JSON object, like every other line of the stream.
		log.Info("effective config", "plan", p.View())
	} else {
		fmt.Fprint(e.stderr, p.Text())
	}
	for _, w := range p.DropWarnings() {
		log.Warn(w.String())
	}
}

// beforeLaunch runs what serve and bench check before a model load:
// preflight, or with --skip-preflight only its Python start-up check,
// which refuses a plan whose environment a site hook would change.
func (e *env) beforeLaunch(c *cli.Context, p *plan.Plan, log *slog.Logger) error {
	if !c.Bool("skip-preflight") {
		return e.runPreflight(c, p, log)
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	f := preflight.SiteHooks(c.Context, p, c.Bool("allow-site-overrides"), cwd)
	switch f.Status {
	case preflight.Warn:
		log.Warn(f.Reason)
	case preflight.Fail:
		return &statusError{code: 1, msg: f.Reason + "; " + f.Fix}
	}
	return nil
}
