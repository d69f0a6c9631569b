package main

import (
	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/report"
	"github.com/sglaunch/sglaunch/internal/cliflow"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/jsonout"
	"github.com/sglaunch/sglaunch/internal/statedir"
)

// benchRecordCommands are bench list, show and compare.
func benchRecordCommands(e *env) []*cli.Command {
	return []*cli.Command{
		{
			Name:  "list",
			Usage: "list the benchmark records, oldest first",
			Flags: []cli.Flag{recordsDirFlag, oldOutDirFlag, jsonFlag},
			Action: func(c *cli.Context) error {
				store, err := e.recordStore(c)
				if err != nil {
					return err
				}
				list, err := store.List()
				if err != nil {
					return err
				}
				if c.Bool("json") {
					if list == nil {
						list = []bench.Entry{}
					}
					return jsonout.Write(e.stdout, list)
				}
				return report.WriteList(e.stdout, list)
			},
		},
		{
			Name:      "show",
			Usage:     "print one record: what ran, where, and its results",
			ArgsUsage: "ID   (an ID, a unique prefix, latest, or a record file)",
			Flags:     []cli.Flag{recordsDirFlag, oldOutDirFlag, jsonFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return inputerr.Errorf("bench show: want one record ID, got %d arguments; `sglaunch bench list` shows them", c.NArg())
				}
				rec, err := e.record(c, c.Args().First())
				if err != nil {
					return err
				}
				if c.Bool("json") {
					_, err = e.stdout.Write(rec.JSON())
					return err
				}
				return report.WriteShow(e.stdout, rec)
			},
		},
		{
			Name:      "compare",
			Usage:     "compare record B with record A: metric deltas in %, whether each is beyond the noise of the rounds, and which flags and env differ",
			ArgsUsage: "A B",
			Flags: []cli.Flag{recordsDirFlag, oldOutDirFlag, jsonFlag, &cli.BoolFlag{Name: "all", Usage: "show every metric, not only the key ones"},
				&cli.Float64Flag{Name: "fail-if-slower", Usage: "exit 1 when a key metric of B is slower than A's by more than `PCT` percent, beyond the noise of the rounds (or, with fewer than 3 rounds a side, at all)", DefaultText: "off"}},
			Action: func(c *cli.Context) error {
				if c.NArg() != 2 {
					return inputerr.Errorf("bench compare: want two record IDs (A B), got %d arguments", c.NArg())
				}
				store, err := e.recordStore(c)
				if err != nil {
					return err
				}
				a, err := store.Get(c.Args().Get(0))
				if err != nil {
					return err
				}
				b, err := store.Get(c.Args().Get(1))
				if err != nil {
					return err
				}
				cmp := bench.Compare(a, b)
				if c.Bool("json") {
					err = jsonout.Write(e.stdout, map[string]any{"a": a.ID, "b": b.ID, "comparison": cmp})
				} else {
					err = report.WriteComparison(e.stdout, cmp, c.Bool("all"))
				}
				if err != nil || !c.IsSet("fail-if-slower") {
					return err
				}
				return failIfSlower(cmp, c.Float64("fail-if-slower"))
			},
		},
		benchExportCommand(e),
		benchReportCommand(e),
	}
}

// failIfSlower is compare's CI gate: exit 1 when B is slower.
func failIfSlower(cmp bench.Comparison, pct float64) error {
	if pct < 0 {
		return inputerr.Errorf("--fail-if-slower %g: want a percentage of 0 or more", pct)
	}
	if slow := cmp.Slower(pct); len(slow) > 0 {
		return &cliflow.Exit{Code: 1, Msg: bench.SlowerText(slow, pct)}
	}
	return nil
}

// recordStore opens --dir or the state directory's records;
// `bench --dir DIR list` reads DIR as `bench list --dir DIR` does.
func (e *env) recordStore(c *cli.Context) (*bench.Store, error) {
	dir := e.recordsDir(c)
	if dir != "" {
		return bench.OpenStore(dir)
	}
	s, err := e.settings(c)
	if err != nil {
		return nil, err
	}
	return bench.OpenRecords(statedir.State(s.StateDir, e.getenv), statedir.Shared(s.StateDir, e.getenv))
}

// record reads record id (an ID, a unique prefix, latest, or a record
// file) from the records recordStore opens.
func (e *env) record(c *cli.Context, id string) (*bench.Record, error) {
	store, err := e.recordStore(c)
	if err != nil {
		return nil, err
	}
	return store.Get(id)
}
