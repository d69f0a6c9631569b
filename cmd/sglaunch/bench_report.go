package main

import (
	"bytes"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/report"
	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// benchExportCommand is bench export: a record in another tool's format.
func benchExportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write a record in bench_serving's result format (one JSON line per level), for scripts that read it",
		Description: "--format bench-serving writes the keys of SGLang's bench_serving result lines (completed,\n" +
			"request_throughput, mean_ttft_ms, ...), in its order, one line per level of each generator\n" +
			"workload. As bench_serving does, a closed loop's request rate is the bare word Infinity.",
		ArgsUsage: "ID",
		Flags: []cli.Flag{recordsDirFlag, outputFlag,
			&cli.StringFlag{Name: "format", Value: "bench-serving", Usage: "output `FORMAT`: " + strings.Join(report.ExportFormats, ", ")}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return inputerr.Errorf("bench export: want one record ID, got %d arguments", c.NArg())
			}
			if f := c.String("format"); !slices.Contains(report.ExportFormats, f) {
				return inputerr.Errorf("--format %q: want one of %s", f, strings.Join(report.ExportFormats, ", "))
			}
			rec, err := e.record(c, c.Args().First())
			if err != nil {
				return err
			}
			var b bytes.Buffer
			if err := report.WriteBenchServing(&b, rec); err != nil {
				return err
			}
			return e.writeOut(c, b.Bytes())
		},
	}
}

// benchReportCommand is bench report: records as one HTML page of charts.
func benchReportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write one self-contained HTML page of charts setting records side by side",
		Description: "Per workload: output throughput and latency (TTFT, per-token ITL, end-to-end; median and\n" +
			"p99) against concurrency or request rate, and the TTFT and ITL distributions at the highest level\n" +
			"the records share (from a record's --details file when it has one), one colour per record.\n" +
			"The page has no scripts and loads nothing: open it anywhere.",
		ArgsUsage: "ID [ID...]",
		Flags:     []cli.Flag{recordsDirFlag, outputFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return inputerr.Errorf("bench report: want one record ID or more; `sglaunch bench list` shows them")
			}
			store, err := e.recordStore(c)
			if err != nil {
				return err
			}
			var recs []*bench.Record
			for _, id := range c.Args().Slice() {
				rec, err := store.Get(id)
				if err != nil {
					return err
				}
				recs = append(recs, rec)
			}
			var b bytes.Buffer
			if err := report.WriteReport(&b, recs); err != nil {
				return err
			}
			return e.writeOut(c, b.Bytes())
		},
	}
}
