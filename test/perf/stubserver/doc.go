// Command stubserver serves SGLang's streaming endpoints from
// loadgen/loadgentest on an exact schedule, for measuring the load
// generator where the Python simulator would be the bottleneck. It
// prints its address on stdout and serves until killed.
//
//	go run ./test/perf/stubserver -ttft 50ms -itl 10ms
//
// -hostile MODE answers every generation request the way a hostile or
// broken server would (loadgentest.HostileModes), for test/reliability's
// memory bounds.
//
// Each request's schedule runs from its arrival on the machine (the
// kernel's receive stamp, on Linux), and GET /stub/served says the median
// TTFT the streams since the last call were served with, from that
// arrival to their first token's write: the truth a client's TTFT is
// judged by, whatever the stub's own lateness under a wave of requests.
//
// It is a benchmark tool, not part of sglaunch, and no stand-in for
// SGLang's life cycle: no load phases, no health gate.
package main
