package loadgen

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// h1Client sends the load's streamed requests over plain HTTP/1.1
// connections it keeps itself, read by the stream's own goroutine (on
// Linux, the body by the reactor: h1_raw_linux.go). net/http
// holds three goroutines and two buffers per connection (about 45 KiB of a
// stream's cost at thousands of streams); here a stream is its goroutine,
// the connection, a read buffer that starts at h1BufStart and the event
// reader's buffer. Everything but the load's streams (health, server_info,
// flush_cache, /v1/models) stays on net/http.
type h1Client struct {
	addr   string // host:port to dial
	host   string // the Host header
	prefix string // the base URL's path, before each request's
	auth   string // "Bearer KEY", or ""
	dialer net.Dialer

	mu      sync.Mutex
	idle    []*h1Conn // last in, first out
	maxIdle int
	re      reactor // wakes the streams' raw sockets (h1_raw_linux.go)
}

// newH1Client returns the client for baseURL, or nil when its requests
// must go through net/http: an https URL, or a server the environment
// sends through a proxy (net/http's proxy policy, as sglangapi applies it:
// a loopback server is always reached directly).
func newH1Client(baseURL, apiKey string, maxConns int) *h1Client {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil {
		return nil
	}
	if !sglangapi.IsLoopback(u.Hostname()) {
		p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
		if err != nil || p != nil {
			return nil
		}
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	c := &h1Client{
		addr:    addr,
		host:    u.Host,
		prefix:  u.EscapedPath(),
		dialer:  net.Dialer{Timeout: sglangapi.DefaultDialTimeout, KeepAlive: 30 * time.Second},
		maxIdle: max(maxConns, 2) + 4,
	}
	if apiKey != "" {
		c.auth = "Bearer " + apiKey
	}
	return c
}

// get returns an idle connection, or nil when there is none.
func (c *h1Client) get() *h1Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.idle)
	if n == 0 {
		return nil
	}
	hc := c.idle[n-1]
	c.idle[n-1] = nil
	c.idle = c.idle[:n-1]
	return hc
}

// put keeps hc for the next request, or closes it when the idle pool is
// full.
func (c *h1Client) put(hc *h1Conn) {
	hc.idle()
	c.mu.Lock()
	if len(c.idle) < c.maxIdle {
		c.idle = append(c.idle, hc)
		hc = nil
	}
	c.mu.Unlock()
	if hc != nil {
		hc.close()
	}
}

// idleCount is how many connections wait in the pool.
func (c *h1Client) idleCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.idle)
}

// closeIdle closes the idle connections.
func (c *h1Client) closeIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, hc := range idle {
		hc.close()
	}
}

// dial opens a new connection.
func (c *h1Client) dial(ctx context.Context) (*h1Conn, error) {
	nc, err := c.dialer.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	if raw := c.rawOf(nc); raw != nil {
		return &h1Conn{raw: raw}, nil
	}
	hc := &h1Conn{nc: nc}
	hc.enableStamps()
	return hc, nil
}

// warm tops the idle pool up to n connections, each of which has carried
// one light request (GET /v1/models), so that the server has accepted it
// and no measured request pays a handshake or an accept. Failures are not
// errors: the level's own requests say whether the server is reachable.
func (c *h1Client) warm(ctx context.Context, n int) {
	need := n - c.idleCount()
	if need < 1 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, warmConnsTimeout)
	defer cancel()
	// A few dialers take turns rather than a goroutine per connection:
	// a dial's stack grows to 8 KiB, and thousands at once would leave
	// that much memory per stream behind, twice a stream's own stack.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(need, warmDialers) {
		wg.Go(func() {
			for next.Add(1) <= int64(need) && ctx.Err() == nil {
				hc, err := c.dial(ctx)
				if err != nil {
					continue
				}
				if c.light(ctx, hc, "/v1/models") {
					c.put(hc)
				} else {
					hc.close()
				}
			}
		})
	}
	wg.Wait()
}

// warmDialers is how many connections warm opens at once.
const warmDialers = 64
