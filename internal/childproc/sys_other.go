//go:build !linux

package childproc

import "syscall"

// sysProcAttr gives the child its own process group. There is no
// parent-death signal outside Linux: a child of a sglaunch killed with
// SIGKILL lives on there, as it would under os/exec.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
