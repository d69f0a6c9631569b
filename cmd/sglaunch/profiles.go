package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/profiles"
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
						return jsonout.Write(e.stdout, list)
					}
					return profiles.WriteList(e.stdout, list)
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
