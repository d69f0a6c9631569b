// Package leftovers ends what an sglaunch that was killed without a
// chance to clean up (kill -9, an OOM kill) left running: server workers
// that escaped the parent-death signal (a worker that called setsid()),
// the children of a command workload, and the workload's scratch
// directory.
//
// It acts only on launches whose runtime state (internal/runstate) says
// their sglaunch is gone, checked by pid, start time and executable, and
// only on processes whose environment carries such a launch's id
// (plan.LaunchIDVar, set on every process sglaunch starts). It never
// touches a live launch, or a process it cannot prove belongs to a dead
// one. serve and bench sweep at start; verify and diff never do.
package leftovers
