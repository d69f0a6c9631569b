package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func profilesCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "profiles",
		Usage: "list and show profiles",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list every profile along the search path and the built-ins (name, source, description)",
				Flags: []cli.Flag{jsonFlag},
				Action: func(c *cli.Context) error {
					s, err := e.settings(c)
					if err != nil {
						return err
					}
					list := e.finder(s).List()
					if c.Bool("json") {
						return writeJSON(e.stdout, list)
					}
					tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "NAME\tSOURCE\tDESCRIPTION")
					for _, l := range list {
						desc := l.Description
						switch {
						case l.Err != "":
							desc = "ERROR: " + l.Err
						case l.ShadowedBy != "":
							desc = "(shadowed by " + l.ShadowedBy + ") " + desc
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Name, l.Source, desc)
					}
					return tw.Flush()
				},
			},
			{
				Name:      "show",
				Usage:     "print a profile as fully resolved YAML (extends applied)",
				ArgsUsage: "NAME|PATH",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return inputerr.Errorf("profiles show: want one profile name or path, got %d arguments", c.NArg())
					}
					s, err := e.settings(c)
					if err != nil {
						return err
					}
					p, err := e.finder(s).Load(c.Args().First())
					if err != nil {
						return err
					}
					_, err = fmt.Fprint(e.stdout, p.YAML())
					return err
				},
			},
		},
	}
}
