// Package rxstamp reads a socket with the kernel's receive time stamp
// (SO_TIMESTAMPNS): the moment data reached the machine, not the moment a
// goroutine got round to reading it. loadgen stamps a stream's events
// with it, and test/perf's stub server a request's arrival.
//
// It only reads; it must not hold connections, buffers or policy (when
// to stamp is the caller's choice). Off Linux, and on a 32-bit Linux,
// Enable reports false and callers read as before.
package rxstamp
