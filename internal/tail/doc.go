// Package tail keeps the end of a child's output and says what its last
// lines were: the one buffer and the one "last lines" rule behind every
// error that quotes a child (the server's output when it dies, a command
// workload's output in its record, a probe's stderr in a preflight
// finding).
//
// Lines are shown as a terminal would show them: the text after the last
// carriage return (a progress bar's final state), without terminal escape
// sequences, very long lines shortened, and a line cut by the buffer's
// bound left out.
//
// What it must not do: run or read a child itself, log, or decide how
// many lines a message carries (its callers do).
package tail
