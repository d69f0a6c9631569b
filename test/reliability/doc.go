// Package reliability runs the scenarios behind the README's reliability
// table through the real sglaunch binary, the real python3 and the
// simulated server (and the Go stub server for hostile answers):
//
//   - stop cycles over every signal and kill scenario, each with a
//     worker that called setsid(); after a kill -9 of sglaunch, the next
//     start must end what is left;
//   - random kill -9s of bench, after which the record keeps every
//     level reported done;
//   - hostile servers, against which bench's memory stays bounded.
//
// A plain `go test ./...` runs a short version (each scenario about
// once, under a minute: the three tests, and the stop cycles among
// themselves, run in parallel, each cycle in an environment and on a
// port of its own). The counts of the README come from
//
//	SGLAUNCH_RELIABILITY=full go test ./test/reliability -v -timeout 60m
//
// SGLAUNCH_RELIABILITY_CYCLES and SGLAUNCH_RELIABILITY_BENCH_KILLS set
// the counts one by one; SGLAUNCH_RELIABILITY_REPORT=FILE appends the
// table rows (scenario | tries | failures) to FILE.
package reliability
