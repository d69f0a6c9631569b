package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/internal/statedir"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/status"
)

func statusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show the running sglaunch launches: phase, load, liveness, restarts, the benchmark they reproduce",
		Description: "Reads the runtime state of each launch on this host, and the launch's status endpoint when it has one\n" +
			"(--status-addr): the phase while loading, the ETA, the probes, restarts and the last exit come only\n" +
			"from there. --url reads a status endpoint anywhere.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Aliases: []string{"p"}, Usage: "only the launch of profile `NAME` (default: every launch)"},
			&cli.StringFlag{Name: "url", Usage: "read the status endpoint at `URL` (http://HOST:PORT) instead of the runtime state"},
			&cli.BoolFlag{Name: "json", Usage: "print /status's JSON: one object with --profile or --url, else a list"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return inputerr.Errorf("status: unexpected argument %q; use --profile NAME", c.Args().First())
			}
			if c.IsSet("url") && c.IsSet("profile") {
				return inputerr.Errorf("give --profile or --url, not both")
			}
			snaps, err := e.statusSnapshots(c)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if c.IsSet("url") || c.IsSet("profile") {
					return jsonout.Write(e.stdout, snaps[0])
				}
				return jsonout.Write(e.stdout, snaps)
			}
			return status.RenderAll(e.stdout, snaps)
		},
	}
}

// statusSnapshots gathers what is known of the launches asked about:
// the status endpoint at --url, else those status.Find finds.
func (e *env) statusSnapshots(c *cli.Context) ([]*status.Snapshot, error) {
	if u := c.String("url"); u != "" {
		snap, err := status.Fetch(c.Context, u)
		if err != nil {
			return nil, inputerr.Wrap(err)
		}
		return []*status.Snapshot{snap}, nil
	}
	s, err := e.settings(c)
	if err != nil {
		return nil, err
	}
	dir := statedir.Runtime(s.RuntimeDir, s.StateDir, e.getenv)
	want := c.String("profile")
	if profiles.IsPath(want) {
		p, err := e.finder(s).Load(want)
		if err != nil {
			return nil, err
		}
		want = p.Name
	}
	return status.Find(c.Context, dir, want)
}
