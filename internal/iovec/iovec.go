package iovec

// Advance drops the first n bytes of bufs, in place, and the empty
// buffers before what is left: what a writev or sendmsg of bufs that
// took n bytes leaves to send. Advance(bufs, 0) drops only the leading
// empty buffers.
func Advance(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if n > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}
