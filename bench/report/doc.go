// Package report renders benchmark records for people and for other
// tools: the text of bench's results, bench list, bench show and bench
// compare (WriteResults, WriteList, WriteShow, WriteComparison), one
// self-contained HTML page of SVG charts that sets records side by side
// (WriteReport: throughput and latency against concurrency or request
// rate, TTFT and ITL distributions from a record's --details file or its
// percentiles), and bench export's formats (WriteBenchServing:
// bench_serving's JSON lines).
//
// Change the report here; what a record holds and how two are judged
// (bench.Compare, the intervals and verdicts) stay in package bench.
//
// What it must not do: run a benchmark, reach a server or touch a
// process. It reads records only: its own imports are bench (the record
// types), bench/workload and loadgen (the types records hold), never
// launcher, supervise, health, internal/childproc, internal/hostprobe,
// internal/sglangapi or internal/proc (test/layering_test.go holds the
// rule).
package report
