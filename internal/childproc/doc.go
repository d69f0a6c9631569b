// Package childproc is the one way sglaunch runs a child process that is
// not the server: the interpreter probes, `--help`, nvidia-smi, the site
// hook probe, `systemctl show` (verify's unit lookup) and the external
// commands of command workloads. Nothing else in sglaunch calls os/exec,
// but package launcher for the server itself.
//
// Every child gets its own process group and, on Linux, a parent-death
// signal (from an OS thread kept locked until the child is reaped, see
// golang/go#27505), so nothing it starts outlives it or sglaunch. When the
// child exits, or its context ends or its Timeout passes, the whole group
// is killed; the wait for pipes that something outside the group still
// holds open is bounded by WaitDelay. A call therefore returns within
// Timeout + Grace + WaitDelay, whatever the child and its descendants do.
// Captured output is capped per stream (stdout keeps its start, the
// answer; stderr its end, through internal/tail, where a failure is
// explained); the excess is read and dropped, so the child never blocks
// on a full pipe.
//
// Run runs a short child to completion and returns its output. Start and
// Wait are the same machinery for a child that runs long and streams its
// output to writers.
//
// What it must not do: supervise the SGLang server (package launcher does:
// restarts, readiness and signal forwarding are not here), interpret a
// child's output, or log. A detached grandchild (one that called setsid)
// is not killed: it left the group, and only its pipes are let go.
//
// The platform split: sys_linux.go asks for Setpgid and Pdeathsig;
// sys_other.go (other Unix systems) only Setpgid, which is all they have.
package childproc
