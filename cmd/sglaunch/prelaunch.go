package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/launch"
	"github.com/sglaunch/sglaunch/plan"
)

// Flags of the checks serve and bench run before a model load, and of
// the status endpoint (serve, bench --keep-running).
var (
	statusAddrFlag    = &cli.StringFlag{Name: "status-addr", Usage: "serve /livez, /readyz, /status and /metrics on `HOST:PORT` (PORT or :PORT: loopback; default $SGLAUNCH_STATUS_ADDR, else the profile's status_addr, else off)"}
	statusProxyFlag   = &cli.BoolFlag{Name: "status-proxy-metrics", Usage: "also pass the server's own sglang:* metrics through /metrics, labelled with the profile and fingerprint (needs the server's --enable-metrics)"}
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

// launchSpec is what serve and bench tell launch.Run alike: the plan
// (nil for bench --url), the directories, the checks before the load
// (--skip-preflight, --allow-site-overrides) and the status endpoint's
// flags.
func (e *env) launchSpec(c *cli.Context, p *plan.Plan, s plan.Config, log *slog.Logger) launch.Spec {
	return launch.Spec{
		Plan:       p,
		RuntimeDir: statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv),
		StateDir:   statedir.State(s.StateDir, e.getenv),
		Stderr:     e.stderr,
		Log:        log,
		Preflight: launch.Preflight{
			Skip: c.Bool(skipPreflightFlag.Name), AllowSiteOverrides: c.Bool(allowSiteFlag.Name),
			Options: e.preflightOptions(s, false),
		},
		StatusProxy: c.Bool(statusProxyFlag.Name),
		Probes:      e.probes,
		LookPath:    e.lookPath,
		Getenv:      e.getenv,
	}
}

// fromLaunch turns how a launch ended into sglaunch's exit status.
func fromLaunch(err error) error {
	var x *launch.Exit
	if errors.As(err, &x) {
		return &cliflow.Exit{Code: x.Code, Msg: x.Msg, Raise: x.Signal}
	}
	return err
}

// logger is sglaunch's own logger for serve and bench, in --log-format,
// else SGLAUNCH_LOG_FORMAT's format.
func (e *env) logger(c *cli.Context, s plan.Config) (*slog.Logger, error) {
	format, flag := s.LogFormat, "SGLAUNCH_LOG_FORMAT"
	if c.IsSet("log-format") {
		format, flag = c.String("log-format"), "--log-format"
	}
	log, err := logging.New(e.stderr, format)
	if err != nil {
		return nil, inputerr.Errorf("%s: %w", flag, err)
	}
	return log, nil
}
