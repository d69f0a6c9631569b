// Package runstate keeps one small file per running launch,
// $XDG_RUNTIME_DIR/sglaunch/<profile>.json (/run/sglaunch for root): the
// plan, fingerprint, sglaunch's and the server's pids, the port, start and
// ready times. serve and bench write it; verify and diff read it. A file
// whose sglaunch pid is gone is stale.
//
// It records what a launch reports and never signals or starts a
// process; Remove deletes a file only for the launch that wrote it.
package runstate
