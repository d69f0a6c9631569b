// Package statefile reads and writes sglaunch's own small JSON files:
// benchmark records, runtime state, launch counts, load history and the
// preflight cache. Every one is read with a size bound (a damaged or
// hostile file is refused with an error naming it, never read whole
// into memory) and written whole and atomically (internal/atomicfile),
// 0600 in a 0700 directory: they can hold command lines and server
// output that are the user's alone.
//
// What it must not do: decide where files live (internal/statedir and
// the owners do), know any file's schema, lock against other writers, or
// log.
package statefile
