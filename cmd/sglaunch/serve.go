package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/launch"
	"github.com/sglaunch/sglaunch/plan"
)

func serveCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the server from a profile and supervise it until it ends (for a terminal or systemd's ExecStart=)",
		Description: "Prints the effective config, starts the server exactly as planned, waits until /health answers 200\n" +
			"(sending READY=1 to systemd), then probes it every health.interval. SIGTERM, SIGINT, SIGHUP and SIGQUIT\n" +
			"stop it: the signal goes to the server's main process (SGLang drains there), and after stop_timeout everything left is\n" +
			"killed; a second Ctrl-C kills at once.\n" +
			"A stop asked for by SIGTERM, SIGINT or SIGHUP that the server completes by itself (SGLang drains,\n" +
			"then SIGKILLs its own tree) ends sglaunch by that signal, which systemd counts as a clean stop.",
		ArgsUsage: "[-- SERVER_ARGS...]",
		Flags: []cli.Flag{
			profileFlag, setFlag, unsetFlag,
			&cli.BoolFlag{Name: "dry-run", Usage: "print the config and exit"},
			&cli.StringFlag{Name: "log-file", Usage: "also append the server's output to `PATH` (default $SGLAUNCH_LOG_FILE)"},
			&cli.StringFlag{Name: "log-format", Usage: "sglaunch's own lines as `FORMAT`: text or json (default $SGLAUNCH_LOG_FORMAT, else text)"},
			skipPreflightFlag, allowSiteFlag, statusAddrFlag, statusProxyFlag,
		},
		Action: func(c *cli.Context) error {
			plan, s, err := e.loadPlan(c, plan.ModeServe)
			if err != nil {
				return err
			}
			placement, err := e.place(plan)
			if err != nil {
				return err
			}
			log, err := e.logger(c, s)
			if err != nil {
				return err
			}
			logFile := s.LogFile
			if c.IsSet("log-file") {
				logFile = c.String("log-file")
			}
			e.printPlan(plan, log)
			if c.Bool("dry-run") {
				return nil
			}
			if err := needsLinux("sglaunch serve"); err != nil {
				return err
			}
			spec := e.launchSpec(c, plan, s, log)
			spec.Mode, spec.Placement, spec.LogFile = plan.Mode, placement, logFile
			spec.Stdout, spec.StatusEndpoint = e.stdout, true
			if store, err := e.recordStore(c); err == nil {
				spec.Records = store
			}
			return fromLaunch(launch.Run(c.Context, spec))
		},
	}
}
