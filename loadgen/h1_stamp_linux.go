//go:build linux && !race

// Not under the race detector: it learns that a write happened before a
// read from syscall.Read and syscall.Write, not from syscall.Recvmsg, and
// would report the client's reads as racing with the test servers' writes.

package loadgen

import (
	"io"
	"net"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/rxstamp"
)

// arrivalStamps holds what a connection needs to read with the kernel's
// receive stamps.
type arrivalStamps struct {
	rc     syscall.RawConn
	recvFn func(fd uintptr) bool // h1Conn.recv, made once
	oob    [rxstamp.OOBLen]byte
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
	if !ok {
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil || !rxstamp.Enable(rc) {
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
	n, at, err := rxstamp.Recv(int(fd), st.p, st.oob[:])
	if err == syscall.EAGAIN {
		return false
	}
	st.n, st.err, hc.arrived = n, err, at
	return true
}
