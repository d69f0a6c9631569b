//go:build linux

package childproc

import "syscall"

// sysProcAttr gives the child its own process group, so that one kill
// reaches everything it starts, and a parent-death signal: the kernel
// kills the child when the thread that forked it exits, which (the thread
// stays locked until the child is reaped) happens only when sglaunch dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
