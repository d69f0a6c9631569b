package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/internal/cliflow"
)

// readsRecords says a command reads the records directory that --dir
// names: bench's subcommands (bench itself writes it, creating it).
func readsRecords(path string, c *cli.Command) bool {
	return strings.HasPrefix(path, "bench ") && cliflow.LookupFlag(c.Flags, "--dir") != nil
}

// requireRecordsDir refuses a --dir that does not exist: `bench list
// --dir /nonexistent` printed an empty table and exited 0 (issue 24).
func requireRecordsDir(c *cli.Context) error {
	for _, ctx := range c.Lineage() {
		if ctx.Command == nil || cliflow.LookupFlag(ctx.Command.Flags, "--dir") == nil || !ctx.IsSet("dir") {
			continue
		}
		return bench.CheckRecordsDir(ctx.String("dir"))
	}
	return nil
}
