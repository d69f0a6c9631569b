// Package perf holds the supervision benchmarks of sglaunch serve: how
// fast readiness and crashes are noticed, what relaying the server's log
// costs, and whether 100 start/stop cycles leave any process behind. They
// run the real binary against the simulated server through python3:
//
//	go test ./test/perf -run '^$' -bench . -benchtime 20x
//
// BenchmarkPreflightAlternating measures a cold preflight against a
// cached one with two interpreters used in turn; table.sh prints the cost
// figures of the whole suite (client, journal relay, preflight) as one
// table, each a ratio against its reference measured in the same run.
// README.md in this directory has the latest results and how to rerun
// each. Nothing here runs under a plain `go test ./...`.
package perf
