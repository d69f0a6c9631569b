// Package test holds sglaunch's end-to-end tests: the real sglaunch
// binary, built once per run, driving the simulated SGLang server through
// the real python3, over real sockets and with real signals.
package test
