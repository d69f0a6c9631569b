// Package byteset finds, in one pass over a slice, the first byte that is
// one of a small set (at most eight): what a hot loop would otherwise do
// with one bytes.IndexByte pass per byte of the set. On amd64 with AVX2
// the pass compares 32 bytes at a time against every byte of the set;
// elsewhere Fast is false and Index is a plain loop, correct but slower
// than searching byte by byte, so that callers keep their per-byte
// searches there.
//
// It is for the journal relay's search of the server's output. It must not
// grow into a general string search: the standard library's bytes package
// is that.
package byteset
