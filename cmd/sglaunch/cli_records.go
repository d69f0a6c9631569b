package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
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
		dir := ctx.String("dir")
		fi, err := os.Stat(dir)
		if err != nil {
			return inputerr.Errorf("--dir %s: no records directory there (%v); bench writes its records to $SGLAUNCH_STATE_DIR/records unless given --dir", dir, err)
		}
		if !fi.IsDir() {
			return inputerr.Errorf("--dir %s: not a directory; give the directory that holds the records (a record file is given as the ID)", dir)
		}
		return nil
	}
	return nil
}
