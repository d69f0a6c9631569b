package tty

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Is reports whether w is a terminal. It reads the descriptor through
// SyscallConn, not File.Fd, which would switch a pollable file to
// blocking mode.
func Is(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var terr error
	if cerr := rc.Control(func(fd uintptr) { _, terr = unix.IoctlGetTermios(int(fd), getTermios) }); cerr != nil {
		return false
	}
	return terr == nil
}
