package status

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxConns caps the status endpoint's open connections. Probes and
// scrapes need a handful; past the cap a newcomer takes the slot of the
// connection idle longest (limitListener), so a flood can never exhaust
// sglaunch's files (the liveness probes to the server need them) or its
// memory.
const maxConns = 64

// evictAfter is the least time a connection keeps its slot, from its
// accept or the end of its last request, before a newcomer may take it:
// ample for a client that wrote its request (a probe that waited in the
// kernel's queue) to have it read on a loaded machine, short enough
// that a queue of silent peers drains at 64 connections per 20 ms.
const evictAfter = 20 * time.Millisecond

// limitListener admits at most n connections at once. When all n are
// open, Accept closes the one idle longest outside a handler, never one
// whose request is being answered: a flood of idle or slow peers holds
// descriptors only up to the cap, and no longer keeps a probe (/livez
// for Kubernetes) out for as long as it lasts.
type limitListener struct {
	net.Listener
	n     int
	freed chan struct{} // a slot was freed
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex
	conns map[*limitConn]struct{}
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, n: n, freed: make(chan struct{}, 1), done: make(chan struct{}),
		conns: make(map[*limitConn]struct{}, n)}
}

// errListenerClosed ends Accept once Close was called while it waited.
var errListenerClosed = errors.New("status endpoint: listener closed")

func (l *limitListener) Accept() (net.Conn, error) {
	if err := l.slot(); err != nil {
		return nil, err
	}
	c, err := l.Listener.Accept()
	if err != nil {
		// net/http's Serve retries a temporary error (EMFILE, ECONNABORTED)
		// after a pause, so the endpoint keeps accepting.
		return nil, err
	}
	lc := &limitConn{Conn: c, l: l, last: time.Now()}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.mu.Unlock()
	return lc, nil
}

// slot returns once fewer than n connections are open, closing the
// connection idle longest when it has been idle evictAfter, and waiting
// otherwise (every connection busy, or all just active).
func (l *limitListener) slot() error {
	for {
		l.mu.Lock()
		if len(l.conns) < l.n {
			l.mu.Unlock()
			return nil
		}
		victim, wait := l.idlest(time.Now())
		l.mu.Unlock()
		if victim != nil {
			victim.Close()
			continue
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = time.After(wait)
		}
		select {
		case <-l.freed:
		case <-timer:
		case <-l.done:
			return errListenerClosed
		}
	}
}

// idlest returns the connection outside a handler whose last activity
// is oldest, if it is evictAfter old; else how long until it is (0: every
// connection is in a handler). l.mu is held.
func (l *limitListener) idlest(now time.Time) (*limitConn, time.Duration) {
	var oldest *limitConn
	for c := range l.conns {
		if c.busy == 0 && (oldest == nil || c.last.Before(oldest.last)) {
			oldest = c
		}
	}
	if oldest == nil {
		return nil, 0
	}
	if idle := now.Sub(oldest.last); idle < evictAfter {
		return nil, evictAfter - idle
	}
	return oldest, 0
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn frees its slot once, when closed.
type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
	// busy counts the requests being answered and last is when the
	// latest one ended (or the accept); both under l.mu.
	busy int
	last time.Time
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		select {
		case c.l.freed <- struct{}{}:
		default:
		}
	})
	return err
}

// connKey finds a request's connection in its context.
type connKey struct{}

// withConn is http.Server's ConnContext: it lets markBusy find the
// request's connection.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// markBusy keeps a connection from eviction while its request is
// answered, and counts the answer as its latest activity.
func markBusy(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(connKey{}).(*limitConn)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		c.l.mu.Lock()
		c.busy++
		c.l.mu.Unlock()
		defer func() {
			c.l.mu.Lock()
			c.busy--
			c.last = time.Now()
			c.l.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}
