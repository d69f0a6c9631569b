package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// h1Body reads a response's body from its connection's buffer, undoing
// the chunked transfer coding, and hands out data as soon as one read of
// the connection brings some: an event's stamp is the read that brought
// its last byte.
type h1Body struct {
	ctx     context.Context
	hc      *h1Conn
	chunked bool
	// left is what remains of the current chunk (chunked) or of the
	// body (by length); -1: the body runs to the connection's end.
	left      int64
	needCRLF  bool  // a chunk's data has ended: its "\r\n" comes next
	trailing  bool  // the last chunk has come: its trailers are being read
	err       error // sticky: io.EOF once the body has ended
	clean     bool  // the body ended at its framing's end: the connection can carry another request
	trailerOK int   // budget for trailers
}

func newH1Body(ctx context.Context, hc *h1Conn, h h1Head) *h1Body {
	b := &h1Body{ctx: ctx, hc: hc, chunked: h.chunked, left: h.length, trailerOK: h1MaxHead}
	if h.chunked {
		b.left = 0
	}
	return b
}

// arrival is when the data of the connection's last read reached the
// machine (zero when the kernel did not say): eventReader stamps events
// with it.
func (b *h1Body) arrival() time.Time { return b.hc.arrived }

// Read implements io.Reader.
func (b *h1Body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := b.read(p)
	if err != nil && err != errWouldBlock {
		if !errors.Is(err, io.EOF) && b.ctx.Err() != nil {
			err = b.ctx.Err() // the deadline the context's end set
		}
		b.err = err
	}
	return n, err
}

func (b *h1Body) read(p []byte) (int, error) {
	hc := b.hc
	if b.chunked && b.left == 0 {
		if !b.trailing {
			size, err := b.nextChunk()
			if err != nil {
				return 0, err
			}
			b.left, b.trailing = size, size == 0
		}
		if b.trailing {
			if err := b.trailers(); err != nil {
				return 0, err
			}
			b.clean = true
			return 0, io.EOF
		}
	}
	if b.left == 0 {
		b.clean = true
		return 0, io.EOF
	}
	if hc.r == hc.w {
		if hc.filled && len(hc.buf) < h1BufMax {
			hc.buf = make([]byte, min(2*len(hc.buf), h1BufMax))
			hc.r, hc.w = 0, 0
		}
		if err := hc.fill(max(len(hc.buf), h1BufStart)); err != nil {
			if errors.Is(err, io.EOF) {
				if b.left < 0 {
					return 0, io.EOF // a body delimited by the close
				}
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
	}
	n := hc.w - hc.r
	n = min(n, len(p))
	if b.left >= 0 {
		n = int(min(int64(n), b.left))
		b.left -= int64(n)
		b.needCRLF = b.chunked && b.left == 0
	}
	copy(p, hc.buf[hc.r:hc.r+n])
	hc.r += n
	return n, nil
}

// nextChunk reads the "\r\n" that ends the last chunk's data, if one
// has, and the next chunk's size line.
func (b *h1Body) nextChunk() (int64, error) {
	if b.needCRLF {
		l, err := b.line(h1MaxChunkLine)
		if err != nil {
			return 0, err
		}
		if len(l) != 0 {
			return 0, fmt.Errorf("%w: chunk data overruns its size", errMalformed)
		}
		b.needCRLF = false
	}
	l, err := b.line(h1MaxChunkLine)
	if err != nil {
		return 0, err
	}
	if i := bytes.IndexByte(l, ';'); i >= 0 {
		l = l[:i] // chunk extensions
	}
	size, err := strconv.ParseInt(string(bytes.TrimSpace(l)), 16, 64)
	if err != nil || size < 0 {
		return 0, fmt.Errorf("%w: chunk size %.32q", errMalformed, l)
	}
	return size, nil
}

// trailers reads the lines after the last chunk, through the blank line.
func (b *h1Body) trailers() error {
	for {
		l, err := b.line(b.trailerOK)
		if err != nil {
			return err
		}
		if len(l) == 0 {
			return nil
		}
		b.trailerOK -= len(l) + 2
	}
}

var errFramingLine = fmt.Errorf("%w: a chunk's framing line is too long", errMalformed)

// line reads one framing line; the body may not end inside one.
func (b *h1Body) line(limit int) ([]byte, error) {
	l, err := b.hc.line(limit, errFramingLine)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return l, err
}
