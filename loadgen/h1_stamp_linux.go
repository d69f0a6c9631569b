//go:build linux && !race

// Not under the race detector: it learns that a write happened before a
// read from syscall.Read and syscall.Write, not from syscall.Recvmsg, and
// would report the client's reads as racing with the test servers' writes.

package loadgen

import (
	"encoding/binary"
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// stampCmsg is the size of the control message a stamped read brings: a
// header and a timespec, on a 64-bit system (32-bit ones read unstamped).
const stampCmsg = syscall.SizeofCmsghdr + 16

// arrivalStamps holds what a connection needs to read with the kernel's
// receive stamps.
type arrivalStamps struct {
	rc     syscall.RawConn
	recvFn func(fd uintptr) bool // h1Conn.recv, made once
	oob    [stampCmsg]byte
	// The arguments and results of the recv in progress.
	p   []byte
	n   int
	err error
}

// enableStamps asks the kernel to stamp each read with the time its data
// reached the machine (SO_TIMESTAMPNS). With thousands of open streams the
// client's goroutines run late, by tens of milliseconds when a wave of
// first tokens arrives at once: stamped when the read returned, that delay
// was most of the error in TTFT. Where the socket option is refused the
// connection reads as before.
func (hc *h1Conn) enableStamps() {
	tc, ok := hc.nc.(*net.TCPConn)
	if !ok || syscall.SizeofCmsghdr != 16 || unsafe.Sizeof(syscall.Timespec{}) != 16 {
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return
	}
	hc.st = &arrivalStamps{rc: rc}
	hc.st.recvFn = hc.recv
}

// read reads once into p, noting the data's arrival time (zero when the
// kernel gave none).
func (hc *h1Conn) read(p []byte) (int, error) {
	hc.arrived = time.Time{}
	st := hc.st
	if st == nil {
		return hc.nc.Read(p)
	}
	st.p = p
	err := st.rc.Read(st.recvFn)
	st.p = nil
	switch {
	case err != nil:
		return 0, err // the deadline the request's context set
	case st.err != nil:
		return 0, st.err
	case st.n == 0:
		return 0, io.EOF
	}
	return st.n, nil
}

// recv is one recvmsg on fd; false asks the poller to wait for data.
func (hc *h1Conn) recv(fd uintptr) bool {
	st := hc.st
	for {
		n, oobn, _, _, err := syscall.Recvmsg(int(fd), st.p, st.oob[:], 0)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		st.n, st.err = n, err
		if err == nil && oobn >= stampCmsg {
			hc.arrived = parseStamp(st.oob[:oobn])
		}
		return true
	}
}

// parseStamp reads an SCM_TIMESTAMPNS control message (zero when b is
// another).
func parseStamp(b []byte) time.Time {
	ne := binary.NativeEndian
	level, typ := int32(ne.Uint32(b[8:12])), int32(ne.Uint32(b[12:16]))
	if ne.Uint64(b[0:8]) < stampCmsg || level != syscall.SOL_SOCKET || typ != syscall.SO_TIMESTAMPNS {
		return time.Time{}
	}
	return time.Unix(int64(ne.Uint64(b[16:24])), int64(ne.Uint64(b[24:32])))
}
