package main

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

// Flags of the checks serve and bench run before a model load.
var (
	skipPreflightFlag = &cli.BoolFlag{Name: "skip-preflight", Usage: "launch without running preflight first"}
	allowSiteFlag     = &cli.BoolFlag{Name: "allow-site-overrides", Usage: "warn instead of refusing to start when Python's site hooks (sitecustomize, usercustomize, .pth) change a managed variable"}
)

// beforeLaunch runs what serve and bench check before a model load, side
// by side: preflight (unless --skip-preflight) and the Python start-up
// probe, which refuses a plan whose environment a site hook would change
// (unless --allow-site-overrides).
func (e *env) beforeLaunch(c *cli.Context, plan *plan.Plan, log *slog.Logger) error {
	var wg sync.WaitGroup
	var preErr error
	if !c.Bool("skip-preflight") {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preErr = e.runPreflight(c, plan, log)
		}()
	}
	siteErr := e.checkSiteHooks(c, plan, log)
	wg.Wait()
	if preErr != nil {
		return preErr
	}
	return siteErr
}

// checkSiteHooks runs the plan's interpreter with the plan's environment
// to see what site initialisation does to the variables the plan manages.
func (e *env) checkSiteHooks(c *cli.Context, plan *plan.Plan, log *slog.Logger) error {
	watch := slices.Clone(plan.Managed)
	for _, v := range plan.Env {
		watch = append(watch, v.Name)
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	changes, err := verify.ProbeSite(c.Context, plan.Python, plan.Environ, cwd, watch)
	if err != nil {
		log.Warn("python start-up check skipped: " + err.Error())
		return nil
	}
	if len(changes) == 0 {
		return nil
	}
	var lines []string
	for _, ch := range changes {
		what := fmt.Sprintf("%s=%s", ch.Name, ch.After)
		if ch.Unset {
			what = "unsets " + ch.Name
		}
		was := "unset by the plan"
		if v, ok := plan.EnvValue(ch.Name); ok {
			was = "the plan says " + v
		}
		lines = append(lines, fmt.Sprintf("%s (%s) by %s", what, was, ch.Where()))
	}
	msg := "python start-up changes managed variables, so the server would not run the plan: " + strings.Join(lines, "; ")
	if c.Bool("allow-site-overrides") {
		log.Warn(msg + " (--allow-site-overrides: launching anyway)")
		return nil
	}
	return &statusError{code: 1, msg: msg + "; remove the hook or move the setting into the profile, or pass --allow-site-overrides"}
}
