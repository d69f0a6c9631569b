//go:build linux

package rxstamp

import (
	"encoding/binary"
	"syscall"
	"time"
	"unsafe"
)

// OOBLen is the room a stamped read's control message needs: a header
// and a timespec, on a 64-bit system.
const OOBLen = syscall.SizeofCmsghdr + 16

// Enable asks the kernel to stamp each read of the socket behind rc;
// false where the option is refused or the system is not 64-bit. The
// first socket that asks turns stamping on for the machine from a work
// queue, a moment later: data that arrived before then has no stamp.
func Enable(rc syscall.RawConn) bool {
	if syscall.SizeofCmsghdr != 16 || unsafe.Sizeof(syscall.Timespec{}) != 16 {
		return false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return false
	}
	return true
}

// Recv is one recvmsg on fd into p, with oob (OOBLen bytes) for the
// stamp; EINTR is retried, EAGAIN returned for the poller. at is zero
// when the kernel gave no stamp.
func Recv(fd int, p, oob []byte) (n int, at time.Time, err error) {
	for {
		n, oobn, _, _, err := syscall.Recvmsg(fd, p, oob, 0)
		if err == syscall.EINTR {
			continue
		}
		if err == nil && oobn >= OOBLen {
			at = parse(oob[:oobn])
		}
		return n, at, err
	}
}

// parse reads an SCM_TIMESTAMPNS control message (zero when b is
// another).
func parse(b []byte) time.Time {
	ne := binary.NativeEndian
	level, typ := int32(ne.Uint32(b[8:12])), int32(ne.Uint32(b[12:16]))
	if ne.Uint64(b[0:8]) < OOBLen || level != syscall.SOL_SOCKET || typ != syscall.SO_TIMESTAMPNS {
		return time.Time{}
	}
	return time.Unix(int64(ne.Uint64(b[16:24])), int64(ne.Uint64(b[24:32])))
}
