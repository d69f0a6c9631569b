package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
)

// do is Client.do over the client's own connections: the same request,
// the same stream handling (follow), the clock started as the request's
// first byte is written.
func (c *h1Client) do(ctx context.Context, api API, payload []byte, inputLen, want int, onToken func(int)) *Sample {
	s := &Sample{InputTokens: inputLen}
	st := &stream{s: s, onToken: onToken, want: want, maxPrompt: 16*inputLen + promptSlack}
	st.start = timeNow()
	s.Start = st.start
	hc, h, err := c.roundTrip(ctx, http.MethodPost, api.Path(), payload, func() {
		st.start = timeNow()
		s.Start = st.start
	})
	if err != nil {
		s.refused = errors.Is(err, syscall.ECONNREFUSED)
		s.Err = requestError(err)
		return s
	}
	body := newH1Body(ctx, hc, h)
	if h.status != http.StatusOK {
		s.Err = statusError(h.status, body)
		c.done(hc, h, body)
		return s
	}
	if hc.raw != nil {
		// The reactor reads the body, a step per wake-up, on its own
		// goroutine: an event costs no wake-up of this one.
		st.onMerge = hc.raw.noteMerge
		hc.raw.follow(newFollower(st, api, body, want).step)
	} else {
		follow(st, api, body, want)
	}
	c.done(hc, h, body)
	return s
}

// statusError is the message of an answer with an HTTP error status,
// from the start of its body.
func statusError(status int, body io.Reader) string {
	msg, _ := io.ReadAll(io.LimitReader(body, 2048))
	return fmt.Sprintf("HTTP %d: %s", status, strings.TrimSpace(errorMessage(bytes.TrimSpace(msg))))
}

// done ends a request on hc: back to the pool when its response was read
// to the end of its framing and the server keeps the connection, closed
// otherwise.
func (c *h1Client) done(hc *h1Conn, h h1Head, body *h1Body) {
	if hc.release() && body.clean && !h.close && hc.r == hc.w {
		c.put(hc)
		return
	}
	hc.close()
}

// light sends a GET of path on hc and reads its answer to the end; it
// reports whether hc can carry another request.
func (c *h1Client) light(ctx context.Context, hc *h1Conn, path string) bool {
	h, err := c.exchange(ctx, hc, http.MethodGet, path, nil, func() {})
	if err != nil {
		hc.release()
		return false
	}
	body := newH1Body(ctx, hc, h)
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	return hc.release() && body.clean && !h.close && hc.r == hc.w
}

// roundTrip sends a request on an idle connection, or a new one, and
// reads its response's head; the caller reads the body and hands the
// connection to done. An idle connection the server has closed since
// (an EOF or reset before any byte of the answer) is dropped and the
// request sent again on the next one: nothing of it reached the
// server's handler.
func (c *h1Client) roundTrip(ctx context.Context, method, path string, payload []byte, wrote func()) (*h1Conn, h1Head, error) {
	for {
		hc := c.get()
		reused := hc != nil
		if hc == nil {
			var err error
			if hc, err = c.dial(ctx); err != nil {
				return nil, h1Head{}, err
			}
		}
		h, err := c.exchange(ctx, hc, method, path, payload, wrote)
		if err == nil {
			return hc, h, nil
		}
		hc.release()
		hc.close()
		if ctx.Err() != nil {
			return nil, h1Head{}, ctx.Err()
		}
		if !reused || !staleConn(err) || hc.w > 0 {
			return nil, h1Head{}, err
		}
	}
}

// exchange writes the request on hc (wrote is called just before) and
// reads its response's head. It leaves hc watching ctx.
func (c *h1Client) exchange(ctx context.Context, hc *h1Conn, method, path string, payload []byte, wrote func()) (h1Head, error) {
	if err := hc.watch(ctx); err != nil {
		return h1Head{}, err
	}
	if hc.buf == nil {
		hc.buf = make([]byte, h1BufStart)
	}
	hc.r, hc.w = 0, 0
	head := c.requestHead(method, path, payload)
	wrote()
	if err := hc.send(head, payload); err != nil {
		return h1Head{}, err
	}
	return hc.readHead()
}

// requestHead is the request line and headers, as net/http writes them
// for loadgen's requests.
func (c *h1Client) requestHead(method, path string, payload []byte) []byte {
	b := make([]byte, 0, 256)
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, c.prefix...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, c.host...)
	b = append(b, "\r\nUser-Agent: Go-http-client/1.1\r\n"...)
	if c.auth != "" {
		b = append(b, "Authorization: "...)
		b = append(b, c.auth...)
		b = append(b, "\r\n"...)
	}
	if method == http.MethodPost {
		b = append(b, "Content-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: "...)
		b = strconv.AppendInt(b, int64(len(payload)), 10)
		b = append(b, "\r\n"...)
	}
	return append(b, "\r\n"...)
}

// staleConn reports whether err is what a request on a connection the
// server has closed meets.
func staleConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
