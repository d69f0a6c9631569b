//go:build linux && race

package loadgen

import (
	"sync"
	"syscall"
)

// devNull is read from to tell the race detector about I/O.
var devNull = sync.OnceValue(func() int {
	fd, err := syscall.Open("/dev/null", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
})

// raceAcquireIO tells the race detector that what a read got from the
// kernel was written before it, as syscall.Read does for every read it
// makes (an acquire of the syscall package's I/O token, which every
// syscall.Write releases) and recvmsg does not: a test server in the same
// process writes an answer, and the test then reads what the client
// made of it. A read of nothing from /dev/null makes that acquire.
func raceAcquireIO() {
	if fd := devNull(); fd >= 0 {
		var b [1]byte
		_, _ = syscall.Read(fd, b[:0])
	}
}
