// Package atomicfile writes files so that a reader sees the old content
// or the new, never a half-written file: a temporary file in the same
// directory, synced, then renamed over the target.
//
// It replaces whole files only: it does not append, lock against other
// writers, or decide where files live (internal/statedir does).
// sglaunch's own JSON state files go through internal/statefile, which
// adds the bounded read and the 0600 mode.
package atomicfile
