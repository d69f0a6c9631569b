// Package perfenv is the environment the benchmarks under test/perf run
// sglaunch in: the binary, built once per test binary, and an isolated
// HOME, XDG and state directory with a profile "perf" that runs the
// simulated SGLang server (tp 2, a free port) through the real python3,
// sharing one unpacked simulator.
//
// It is for the benchmarks only: no production package may import it,
// and it measures nothing itself.
package perfenv
