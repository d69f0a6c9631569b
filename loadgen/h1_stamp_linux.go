//go:build linux && !race

// Not under the race detector: it learns that a write happened before a
// read from syscall.Read and syscall.Write, not from syscall.Recvmsg, and
// would report the client's reads as racing with the test servers' writes.

package loadgen

import (
	"net"
	"time"

	"github.com/sglaunch/sglaunch/internal/rxstamp"
)

// arrivalStamps reads a connection with the kernel's receive stamps.
type arrivalStamps = rxstamp.Reader

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
	if rc, err := tc.SyscallConn(); err == nil {
		hc.st = rxstamp.NewReader(rc)
	}
}

// readNC reads nc once into p, noting the data's arrival time (zero when
// the kernel gave none).
func (hc *h1Conn) readNC(p []byte) (int, error) {
	if hc.st == nil {
		hc.arrived = time.Time{}
		return hc.nc.Read(p)
	}
	n, at, err := hc.st.Read(p)
	hc.arrived = at
	return n, err
}
