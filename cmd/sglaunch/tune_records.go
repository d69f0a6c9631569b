package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/atomicfile"
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
			Flags:     []cli.Flag{&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` (default stdout)"}},
			Action: func(c *cli.Context) error {
				rec, err := e.loadTune(c)
				if err != nil {
					return err
				}
				var b bytes.Buffer
				if err := tune.WriteReport(&b, rec); err != nil {
					return err
				}
				out := c.String("output")
				if out == "" {
					_, err := e.stdout.Write(b.Bytes())
					return err
				}
				if err := atomicfile.Write(out, b.Bytes(), 0o644); err != nil {
					return fmt.Errorf("write report: %w", err)
				}
				fmt.Fprintf(e.stderr, "report written to %s\n", out)
				return nil
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
	if _, err := os.Stat(dir); err != nil {
		return nil, inputerr.Errorf("tune %s: %v", dir, err)
	}
	return tune.Load(dir)
}
