// Package iovec holds what a gather write's buffers need between two
// system calls: the buffers advanced past the bytes the kernel took.
// Both raw-socket writers use it: the journal relay's sendmsg of runs and
// prefixes (launcher) and loadgen's writev of a request's head and body.
//
// It must not write, nor own buffers: its callers do both.
package iovec
