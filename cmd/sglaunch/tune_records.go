package main

import (
	"bytes"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/tune"
)

func tuneRecordCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:      "show",
			Usage:     "show a tune: every point best first with its interval, failures, the verdict",
			ArgsUsage: "[DIR|ID]",
			Flags:     []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				rec, err := e.loadTune(c)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return jsonout.Write(e.stdout, rec)
				}
				return tune.WriteShow(e.stdout, rec)
			},
		},
		{
			Name:      "report",
			Usage:     "write a tune's HTML report: every point's objective with its interval, sorted, and each parameter's effect",
			ArgsUsage: "[DIR|ID]",
			Flags:     []cli.Flag{outputFlag},
			Action: func(c *cli.Context) error {
				rec, err := e.loadTune(c)
				if err != nil {
					return err
				}
				var b bytes.Buffer
				if err := tune.WriteReport(&b, rec); err != nil {
					return err
				}
				return e.writeOut(c, b.Bytes())
			},
		},
	}
}

// loadTune loads the tune the argument names (the newest without one).
func (e *env) loadTune(c *cli.Context) (*tune.Record, error) {
	if c.NArg() > 1 {
		return nil, inputerr.Errorf("want at most one tune (DIR or ID), got %d", c.NArg())
	}
	s, err := e.settings(c)
	if err != nil {
		return nil, err
	}
	dir, err := tune.FindDir(e.tunesDir(s), c.Args().First())
	if err != nil {
		return nil, err
	}
	return tune.Load(dir)
}
