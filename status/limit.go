package status

import (
	"errors"
	"net"
	"sync"
)

// maxConns caps the status endpoint's open connections. Probes and
// scrapes need a handful; past the cap a connection waits in the
// kernel's accept queue instead of taking a descriptor, so a flood can
// never exhaust sglaunch's files (the liveness probes to the server need
// them) or its memory.
const maxConns = 64

// limitListener admits at most n connections at once: Accept waits for
// a free slot before it takes the next connection from the kernel.
type limitListener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// errListenerClosed ends Accept once Close was called while it waited.
var errListenerClosed = errors.New("status endpoint: listener closed")

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, errListenerClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		// net/http's Serve retries a temporary error (EMFILE, ECONNABORTED)
		// after a pause, so the endpoint keeps accepting.
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn frees its slot once, when closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
