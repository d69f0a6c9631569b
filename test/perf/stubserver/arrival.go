package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sglaunch/sglaunch/internal/rxstamp"
)

// stampListener hands out connections whose reads note the kernel's
// receive stamp, so that a request's TTFT is served from its arrival on
// the machine and not from when the server got round to it.
type stampListener struct{ net.Listener }

func (l stampListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	r := rxstamp.NewReader(rc)
	if r == nil {
		return c, nil
	}
	return &stampConn{TCPConn: tc, r: r}, nil
}

// stampConn reads with the kernel's receive stamps and keeps the stamp
// of the first read since the last request took it: the arrival of the
// request's first bytes (a client sends its next request only after the
// answer).
type stampConn struct {
	*net.TCPConn
	r *rxstamp.Reader

	mu    sync.Mutex
	first time.Time
}

func (c *stampConn) Read(p []byte) (int, error) {
	n, at, err := c.r.Read(p)
	if n > 0 && !at.IsZero() {
		c.mu.Lock()
		if c.first.IsZero() {
			c.first = at
		}
		c.mu.Unlock()
	}
	return n, err
}

// take returns the arrival noted since the last call, and forgets it.
func (c *stampConn) take() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	at := c.first
	c.first = time.Time{}
	return at
}

type connKey struct{}

// withConn keeps each request's connection in its context.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// unstamped counts the requests whose arrival had no stamp (their TTFT
// then runs from the handler's start).
var unstamped atomic.Int64

// arrival is the request's arrival as its connection's reads stamped
// it; zero where they were not stamped.
func arrival(r *http.Request) time.Time {
	var at time.Time
	if c, ok := r.Context().Value(connKey{}).(*stampConn); ok {
		at = c.take()
	}
	if at.IsZero() {
		unstamped.Add(1)
	}
	return at
}
