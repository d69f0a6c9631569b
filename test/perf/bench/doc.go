// Package benchperf holds the benchmarks of sglaunch bench: how exactly
// its load generator measures a server of known timing (the simulator at
// TTFT 200 ms, ITL 10 ms, concurrency 1 and 32) and what the client
// itself costs (256 streams against the Go stub server), and at scale
// (BenchmarkClientScale, BenchmarkClientWide: memory per open stream,
// CPU per token and TTFT error at 2048 and 8192 streams, against the
// minimal reference client test/perf/refclient). Each iteration
// is one full `sglaunch bench` run, measured from the record it writes:
//
//	go test ./test/perf/bench -run '^$' -bench . -benchtime 1x
//
// test/perf/bench/README.md has the latest results. Nothing here runs
// under a plain `go test ./...`.
package benchperf
