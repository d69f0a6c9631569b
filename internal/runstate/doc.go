// Package runstate keeps one small file per launch,
// $XDG_RUNTIME_DIR/sglaunch/<launch id>.json (/run/sglaunch for root):
// the launch id, the profile (name and file), plan and fingerprint, the
// identities (pid, start time, executable) of sglaunch and of the
// server, the port, start and ready times. serve and bench write it when
// the launch begins, before any process carries the launch id; verify
// and diff read it, and the next serve or bench sweeps what a launch
// whose sglaunch is gone left behind (internal/leftovers).
//
// A state is trusted only as far as its identities hold: a file whose
// sglaunch no longer runs (pid gone, or reused by another process) is
// stale, and a server pid counts only while its start time and
// executable match. Two launches of one profile have a file each.
//
// Launch is one launch's file through its life (Begin, Update, End):
// every change is written at once, so that a reader (verify, status)
// never misses what the launch already did, such as the status URL
// while a rank waits for its group.
//
// It records what a launch reports and never signals or starts a
// process; Remove deletes one launch's file.
package runstate
