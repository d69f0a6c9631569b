package main

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/atomicfile"
	"github.com/sglaunch/sglaunch/internal/logging"
)

// One meaning per spelling: -o/--out is always the one file a command
// writes (slurm's script, lws's manifest, bench report's and tune
// report's page, bench export's lines); --dir is a directory of many
// files (bench's records, tune's own).

// outFlag is where slurm and lws write their file (default stdout).
var outFlag = &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write to `FILE` (replaced atomically) instead of stdout"}

// outputFlag is bench report's, bench export's and tune report's file;
// --output is its older spelling, with the same meaning.
var outputFlag = &cli.StringFlag{Name: "out", Aliases: []string{"o", "output"}, Usage: "write to `FILE` (replaced atomically) instead of stdout"}

// benchDirFlag is where bench writes its record, server log and details.
var benchDirFlag = &cli.StringFlag{Name: "dir", Usage: "write the record, and the server's log and --details beside it, into records directory `DIR` (default $SGLAUNCH_STATE_DIR/records); bench list, show, compare, report and export read it with --dir (--out DIR, the old spelling, still works and warns: -o/--out names one output file)"}

// recordsDirFlag is where list, show, compare, report and export read
// records: --dir, after the subcommand or on bench before it.
var recordsDirFlag = &cli.StringFlag{Name: "dir", Usage: "records directory `DIR`, as bench --dir wrote them (default $SGLAUNCH_STATE_DIR/records)"}

// oldOutDirFlag is --out DIR where it once named bench's records
// directory (bench, list, show, compare): still read, with a warning,
// since -o/--out now always names one output file.
var oldOutDirFlag = &cli.StringFlag{Name: "out", Hidden: true, Usage: "deprecated: the records directory; use --dir"}

// recordsDir is --dir as given on the subcommand or on bench before it,
// else the deprecated --out DIR (with a warning), else "".
func (e *env) recordsDir(c *cli.Context) string {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil {
			continue
		}
		if ctx.IsSet("dir") {
			return ctx.String("dir")
		}
		if slices.Contains(ctx.Command.Flags, cli.Flag(oldOutDirFlag)) && ctx.IsSet("out") {
			dir := ctx.String("out")
			if log, err := logging.New(e.stderr, logging.Text); err == nil {
				log.Warn(fmt.Sprintf("--out DIR for the records directory is deprecated: write --dir %s (-o/--out names the one file a command writes)", dir))
			}
			return dir
		}
	}
	return ""
}

// writeOut writes data to -o/--out, replaced atomically, or to stdout
// without it (or with "-").
func (e *env) writeOut(c *cli.Context, data []byte) error {
	path := c.String("out")
	if path == "" || path == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", c.Command.Name, err)
	}
	return nil
}
