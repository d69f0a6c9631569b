// Package systemd is sglaunch's end-to-end suite under a real systemd:
// TestMain boots the host's own systemd as PID 1 in new pid, mount,
// network, uts, ipc and cgroup namespaces, over an overlay of the host's
// root (the host's files are the read-only lower layer; writes land in a
// tmpfs), with fresh tmpfs on /tmp and /run and a cgroup2 subtree of the
// host's. The tests install units written by `sglaunch unit`, unchanged,
// and drive them with systemctl and journalctl through nsenter; the
// server is the simulator, run by the real python3.
//
// Run it alone with `go test ./test/systemd` (as root: booting systemd
// needs it). It changes nothing on the host and tears everything down by
// pid. A machine that cannot boot systemd fails the suite, saying why; no
// test is skipped.
package systemd
