// Package tty tells whether a stream is a terminal, on Linux and the BSDs
// (macOS included).
//
// It must not change the terminal or the descriptor's mode.
package tty
