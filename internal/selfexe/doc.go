// Package selfexe names the sglaunch binary that a systemd unit's
// ExecStart= or a job script runs: this one, symlinks resolved, refused
// when it is a temporary `go run` build that will be gone when the
// service or the job starts.
//
// It must not write or run anything, nor know what the unit or job says:
// systemd and cluster render those.
package selfexe
