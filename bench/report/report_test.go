package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/bench/workload"
	"github.com/sglaunch/sglaunch/loadgen"
)

// sweepRecord is a record of a chat sweep at concurrency 1, 8 and 32.
func sweepRecord(id string, speed float64) *bench.Record {
	r := bench.NewRecord(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	r.ID, r.Profile, r.Status = id, "kimi", bench.StatusOK
	w := workload.Workload{Name: "sweep", API: loadgen.Chat, InputLen: 1024, OutputLen: 256, Concurrency: []int{1, 8, 32}, Rounds: 2}
	res := bench.WorkloadResult{Workload: w, Status: bench.StatusOK}
	for _, c := range []int{1, 8, 32} {
		f := float64(c)
		m := loadgen.Metrics{Completed: 2 * c, OutputThroughput: speed * f / (1 + f/40),
			TTFT: loadgen.Dist{Median: 100 + f, P90: 110 + f, P95: 115 + f, P99: 130 + 2*f, Max: 140 + 2*f},
			ITL:  loadgen.Dist{Median: 10 + f/8, P90: 11 + f/8, P95: 12 + f/8, P99: 15 + f/4, Max: 20 + f/4},
			E2E:  loadgen.Dist{Median: 3000 + 30*f, P99: 3500 + 40*f}}
		res.Levels = append(res.Levels, bench.LevelRecord{LevelResult: loadgen.LevelResult{Level: loadgen.Level{Concurrency: c}, Metrics: m}})
	}
	r.Results = []bench.WorkloadResult{res}
	return r
}

func TestWriteReport(t *testing.T) {
	a, b := sweepRecord("aaaa0001", 100), sweepRecord("bbbb0002", 120)
	// B has per-request details beside it, and was loaded from its store.
	dir := t.TempDir()
	b.Details = "b.details.jsonl"
	lines := `{"workload":"sweep","level":"c=32","ok":true,"ttft_ms":101.5,"itl_ms":[10,11,12]}
{"workload":"sweep","level":"c=32","ok":true,"ttft_ms":140.25,"itl_ms":[9.5,30]}
{"workload":"sweep","level":"c=32","ok":false,"ttft_ms":0,"itl_ms":[]}
`
	if err := os.WriteFile(filepath.Join(dir, "b.details.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := (&bench.Store{Dir: dir}).Save(b)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = bench.Load(path); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteReport(&out, []*bench.Record{a, b}); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	for _, want := range []string{
		"<!DOCTYPE html>", `<section class="workload" data-workload="sweep">`,
		`id="w1-throughput"`, `id="w1-ttft"`, `id="w1-itl"`, `id="w1-e2e"`, `id="w1-ttft-dist"`, `id="w1-itl-dist"`,
		"TTFT distribution at c=32", `data-record="bbbb0002" data-points="3"`, // B's TTFT: from 0, two values
		`<title>aaaa0001 c=8: `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, never := range []string{"<script", "http://", "https://", "<link", "@import"} {
		if strings.Contains(strings.ReplaceAll(page, `xmlns="http://www.w3.org/2000/svg"`, ""), never) {
			t.Errorf("report is not self-contained: it has %q", never)
		}
	}
	// Per record: throughput, median and p99 of 3 latencies, 2 distributions.
	if n := strings.Count(page, `<path class="series"`); n != 2*(1+3*2+2) {
		t.Errorf("got %d series paths, want 18", n)
	}
}
