// Package testkit holds the small helpers that sglaunch's tests and
// benchmarks share: a buffer safe to poll while a child writes to it, a
// free TCP port, polling a condition with a deadline, and building the
// sglaunch binary for end-to-end runs.
//
// It is for _test.go files only: no production package may import it.
// It must stay small and neutral: timeouts are the caller's (each test
// package keeps its own named bounds), and nothing here starts a process
// other than the Go toolchain building sglaunch.
package testkit
