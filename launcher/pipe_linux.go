package launcher

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipe returns a pipe for one of the server's streams, sized up for
// throughput (best effort: the limit is fs.pipe-max-size).
func pipe() (r, w *os.File, err error) {
	r, w, err = os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	// Through SyscallConn: File.Fd would put the read end in blocking
	// mode, and read deadlines (the partial-line flush) would stop working.
	withFd(r, func(fd int) { _, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeSize) })
	return r, w, nil
}
