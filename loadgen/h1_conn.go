package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// h1Conn is one HTTP/1.1 connection with its read buffer. Only the
// goroutine that took it from the pool uses it.
type h1Conn struct {
	nc   net.Conn // nil once raw holds the socket
	raw  *rawConn // the socket outside Go's poller (h1_raw_linux.go), or nil
	buf  []byte
	r, w int // buf[r:w] is read and not yet consumed
	// used is set once it has carried a request: the server may have
	// closed it since (an idle timeout), which its next request finds out.
	used bool
	// filled is set when the last read filled the buffer: the body's
	// next read gets a larger one.
	filled bool
	stop   func() bool // ends the watch on the request's context
	// arrived is when the data of the last read reached the machine, as
	// the kernel stamped it; zero without a stamp.
	arrived time.Time
	st      *arrivalStamps // nil: plain reads
}

// Bounds on what a server may send around a stream's events.
const (
	// h1BufStart is a connection's read buffer: one read of a chat
	// event and its chunk framing. It grows for a response head or a
	// framing line that does not fit, up to the bounds below, and, up to
	// h1BufMax, for a body whose reads fill it (/generate's events
	// repeat the whole text so far: thousands of bytes each).
	h1BufStart = 512
	h1BufMax   = 16 << 10
	h1BufKeep  = 4 << 10
	// h1MaxHead bounds a response's status line and headers together,
	// and its trailers.
	h1MaxHead = 64 << 10
	// h1MaxChunkLine bounds a chunk's size line (extensions included).
	h1MaxChunkLine = 4 << 10
)

var (
	errHeadTooLarge = fmt.Errorf("response headers over %d bytes", h1MaxHead)
	errMalformed    = errors.New("malformed HTTP response")
)

// watch makes ctx's end interrupt the connection's blocked reads and
// writes, without a goroutine until it ends.
func (hc *h1Conn) watch(ctx context.Context) error {
	if hc.raw != nil {
		stop, err := hc.raw.watch(ctx)
		hc.stop = stop
		return err
	}
	hc.stop = context.AfterFunc(ctx, func() { _ = hc.nc.SetDeadline(time.Unix(1, 0)) })
	return nil
}

// release ends the watch; false when the context ended first, which
// leaves the connection's deadline in the past: it cannot be reused.
func (hc *h1Conn) release() bool {
	if hc.raw != nil {
		hc.raw.unwatch()
	}
	if hc.stop == nil {
		return true
	}
	ok := hc.stop()
	hc.stop = nil
	return ok
}

// close closes the connection.
func (hc *h1Conn) close() {
	if hc.raw != nil {
		hc.raw.close()
		return
	}
	hc.nc.Close()
}

// read reads once into p, noting the data's arrival time (zero when the
// kernel gave none).
func (hc *h1Conn) read(p []byte) (int, error) {
	if hc.raw != nil {
		n, at, err := hc.raw.read(p)
		hc.arrived = at
		return n, err
	}
	return hc.readNC(p)
}

// send writes a request's head and payload.
func (hc *h1Conn) send(head, payload []byte) error {
	if hc.raw != nil {
		return hc.raw.write([][]byte{head, payload})
	}
	bufs := net.Buffers{head, payload}
	_, err := bufs.WriteTo(hc.nc)
	return err
}

// idle readies the connection for the pool: an empty buffer, kept for
// the next request (whose events are likely as large) unless a response
// head or a large event grew it past h1BufKeep.
func (hc *h1Conn) idle() {
	hc.r, hc.w = 0, 0
	if len(hc.buf) > h1BufKeep {
		hc.buf = nil
	}
	hc.used = true
}

// fill reads once more into the buffer, first moving what it holds to
// the front, and growing it when that leaves no room, up to limit bytes.
// It returns an error only when it read nothing.
func (hc *h1Conn) fill(limit int) error {
	if hc.r > 0 {
		hc.w = copy(hc.buf, hc.buf[hc.r:hc.w])
		hc.r = 0
	}
	if hc.w == len(hc.buf) {
		if len(hc.buf) >= limit {
			return errHeadTooLarge
		}
		size := min(max(2*len(hc.buf), h1BufStart), limit)
		hc.buf = append(make([]byte, 0, size), hc.buf[:hc.w]...)[:size]
	}
	for {
		n, err := hc.read(hc.buf[hc.w:])
		hc.w += n
		hc.filled = hc.w == len(hc.buf)
		switch {
		case n > 0:
			return nil
		case err != nil:
			return err
		}
	}
}

// line returns the next line without its "\r\n" (valid until the next
// read), or errTooLong when none ends within limit bytes.
func (hc *h1Conn) line(limit int, errTooLong error) ([]byte, error) {
	scanned := 0 // bytes of buf[r:w] known to hold no "\n"
	for {
		if i := bytes.IndexByte(hc.buf[hc.r+scanned:hc.w], '\n'); i >= 0 {
			end := hc.r + scanned + i
			l := hc.buf[hc.r:end]
			hc.r = end + 1
			return bytes.TrimSuffix(l, []byte("\r")), nil
		}
		scanned = hc.w - hc.r
		if scanned >= limit {
			return nil, errTooLong
		}
		if err := hc.fill(limit + 2); err != nil {
			if errors.Is(err, errHeadTooLarge) {
				err = errTooLong
			}
			if errors.Is(err, io.EOF) && scanned > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// h1Head is what a response's head says about its body.
type h1Head struct {
	status  int
	chunked bool
	length  int64 // the body's length; -1 when chunked or to the close
	close   bool  // the connection ends with this response
}

// readHead reads a response's status line and headers, skipping interim
// (1xx) responses. An io.EOF before any byte of it means the server had
// closed the connection: a stale keep-alive connection.
func (hc *h1Conn) readHead() (h1Head, error) {
	budget := h1MaxHead
	for {
		status, err := hc.line(budget, errHeadTooLarge)
		if err != nil {
			return h1Head{}, err
		}
		budget -= len(status) + 2
		proto, rest, _ := bytes.Cut(status, []byte(" "))
		code, _, _ := bytes.Cut(rest, []byte(" "))
		h := h1Head{length: -1}
		n, err := strconv.Atoi(string(code))
		if err != nil || n < 100 || n > 999 || !bytes.HasPrefix(proto, []byte("HTTP/1.")) {
			return h1Head{}, fmt.Errorf("%w: status line %.64q", errMalformed, status)
		}
		h.status = n
		keepAlive := false
		for {
			l, err := hc.line(budget, errHeadTooLarge)
			if err != nil {
				return h1Head{}, err
			}
			budget -= len(l) + 2
			if len(l) == 0 {
				break
			}
			if err := h.header(l, &keepAlive); err != nil {
				return h1Head{}, err
			}
		}
		if string(proto) == "HTTP/1.0" && !keepAlive {
			h.close = true
		}
		if h.status < 200 && h.status != 101 {
			continue // 100 Continue and the like: the response follows
		}
		switch {
		case h.chunked:
			h.length = -1
		case h.status == 204 || h.status == 304:
			h.length = 0
		}
		if h.length < 0 && !h.chunked {
			h.close = true // the body runs to the connection's end
		}
		return h, nil
	}
}

// header applies one header line to h.
func (h *h1Head) header(l []byte, keepAlive *bool) error {
	k, v, ok := bytes.Cut(l, []byte(":"))
	if !ok {
		return fmt.Errorf("%w: header line %.64q", errMalformed, l)
	}
	v = bytes.TrimSpace(v)
	switch {
	case bytes.EqualFold(k, []byte("Transfer-Encoding")):
		last := v
		if i := bytes.LastIndexByte(v, ','); i >= 0 {
			last = bytes.TrimSpace(v[i+1:])
		}
		switch {
		case bytes.EqualFold(last, []byte("chunked")):
			h.chunked = true
		case !bytes.EqualFold(last, []byte("identity")):
			return fmt.Errorf("%w: unsupported transfer encoding %.64q", errMalformed, v)
		}
	case bytes.EqualFold(k, []byte("Content-Length")):
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 || (h.length >= 0 && h.length != n) {
			return fmt.Errorf("%w: Content-Length %.64q", errMalformed, v)
		}
		h.length = n
	case bytes.EqualFold(k, []byte("Connection")):
		for tok := range bytes.SplitSeq(v, []byte(",")) {
			tok = bytes.TrimSpace(tok)
			switch {
			case bytes.EqualFold(tok, []byte("close")):
				h.close = true
			case bytes.EqualFold(tok, []byte("keep-alive")):
				*keepAlive = true
			}
		}
	}
	return nil
}
