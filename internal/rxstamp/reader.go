package rxstamp

import (
	"io"
	"syscall"
	"time"
)

// Reader reads a socket through the runtime's poller, each read with the
// kernel's receive stamp. Its recv function is made once, so a read
// allocates nothing.
type Reader struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	oob [OOBLen]byte
	// The arguments and results of the read in progress.
	p   []byte
	n   int
	at  time.Time
	err error
}

// NewReader stamps the reads of the socket behind rc; nil where the
// kernel refuses the option (the caller then reads as before).
func NewReader(rc syscall.RawConn) *Reader {
	if !Enable(rc) {
		return nil
	}
	r := &Reader{rc: rc}
	r.fn = r.recv
	return r
}

// Read reads once into p, waiting in the poller (and its deadline) for
// data. at is when the data reached the machine, zero without a stamp;
// the end of the stream is io.EOF.
func (r *Reader) Read(p []byte) (n int, at time.Time, err error) {
	r.p = p
	err = r.rc.Read(r.fn)
	r.p = nil
	switch {
	case err != nil:
		return 0, time.Time{}, err // the deadline
	case r.err != nil:
		return 0, time.Time{}, r.err
	case r.n == 0 && len(p) > 0:
		return 0, time.Time{}, io.EOF
	}
	return r.n, r.at, nil
}

// recv is one recvmsg on fd; false asks the poller to wait for data.
func (r *Reader) recv(fd uintptr) bool {
	n, at, err := Recv(int(fd), r.p, r.oob[:])
	if err == syscall.EAGAIN {
		return false
	}
	r.n, r.at, r.err = n, at, err
	return true
}
