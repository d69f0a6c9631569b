// Package test holds sglaunch's end-to-end tests: the real sglaunch
// binary, built once per run, driving the simulated SGLang server through
// the real python3, over real sockets and with real signals.
//
// The tests must go through the binary alone (its command line,
// environment, files and exit status), never call sglaunch's packages
// (they only read /proc through internal/proc), and leave no process
// behind.
package test
