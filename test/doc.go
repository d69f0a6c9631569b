// Package test holds sglaunch's end-to-end tests: the real sglaunch
// binary, built once per run, driving the simulated SGLang server through
// the real python3, over real sockets and with real signals.
//
// The tests must go through the binary alone (its command line,
// environment, files and exit status), never call sglaunch's packages
// (they only read /proc through internal/proc), and leave no process
// behind.
//
// Each test owns its directories (t.TempDir) and ports
// (testkit.FreePort) and passes its environment to each command, never
// through t.Setenv, so the tests run in parallel, four at once by
// default (testkit.MinParallel; -parallel overrides it). The few that
// judge measured latencies stay serial and say so.
package test
