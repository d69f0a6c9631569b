package sglangapi

import (
	"cmp"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Defaults for the zero Options.
const (
	// DefaultHealthTimeout bounds a /health probe: SGLang's /health runs a
	// 1-token generation and waits for it up to SGLANG_HEALTH_CHECK_TIMEOUT
	// (20 s by default), so anything at or below 20 s fails on a healthy,
	// busy server.
	DefaultHealthTimeout = 30 * time.Second
	// DefaultInfoTimeout bounds /server_info, /model_info, /v1/models and
	// /flush_cache: /server_info asks every scheduler for its state.
	DefaultInfoTimeout = 15 * time.Second
	// DefaultDialTimeout bounds a TCP connect.
	DefaultDialTimeout = 10 * time.Second
	// DefaultMaxBodyBytes caps a JSON response (server_info of a large
	// deployment is tens of KiB).
	DefaultMaxBodyBytes = 16 << 20
)

// Options tune a Client. The zero value is a client with no token and the
// defaults above.
type Options struct {
	// APIKey is the server's --api-key; sent as "Authorization: Bearer
	// KEY" when set.
	APIKey string
	// HealthTimeout bounds Health; 0: DefaultHealthTimeout.
	HealthTimeout time.Duration
	// InfoTimeout bounds ServerInfo, ModelInfo, Models, FlushCache and
	// GetJSON; 0: DefaultInfoTimeout.
	InfoTimeout time.Duration
	// DialTimeout bounds a TCP connect; 0: DefaultDialTimeout.
	DialTimeout time.Duration
	// MaxConns is the most requests the caller runs at once (a load
	// generator's concurrency): the idle pool keeps that many connections
	// to the server so that none is re-dialled mid-run. 0: 2.
	MaxConns int
	// MaxBodyBytes caps a JSON response; 0: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ConnBuffer sizes each connection's read and write buffers; 0:
	// DefaultConnBuffer. A load generator holding thousands of streams
	// open asks for small ones: each connection holds both for its life.
	ConnBuffer int
}

// DefaultConnBuffer is a connection's read and write buffer by default.
const DefaultConnBuffer = 32 << 10

// Client talks to one SGLang server. It is safe for concurrent use.
type Client struct {
	base    string
	auth    string // "Bearer KEY", or ""
	tr      *http.Transport
	rt      http.RoundTripper
	hc      *http.Client
	maxBody int64
	health  time.Duration
	info    time.Duration
}

// New returns a client for the server at baseURL (http://HOST:PORT; a
// trailing slash is dropped).
func New(baseURL string, opts Options) *Client {
	c := &Client{
		base:    strings.TrimRight(baseURL, "/"),
		maxBody: orDefault(opts.MaxBodyBytes, DefaultMaxBodyBytes),
		health:  orDefault(opts.HealthTimeout, DefaultHealthTimeout),
		info:    orDefault(opts.InfoTimeout, DefaultInfoTimeout),
	}
	if opts.APIKey != "" {
		c.auth = "Bearer " + opts.APIKey
	}
	c.tr = &http.Transport{
		Proxy: proxyFor,
		DialContext: (&net.Dialer{
			Timeout:   orDefault(opts.DialTimeout, DefaultDialTimeout),
			KeepAlive: 30 * time.Second,
		}).DialContext,
		// No cap across hosts; one per host sized to the caller's
		// concurrency, with a little slack for the probes beside it.
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: max(opts.MaxConns, 2) + 4,
		IdleConnTimeout:     90 * time.Second,
		// SSE chunks are small and latency-bound: gzip would only add
		// buffering between the server's write and the client's read.
		DisableCompression: true,
		ReadBufferSize:     cmp.Or(opts.ConnBuffer, DefaultConnBuffer),
		WriteBufferSize:    cmp.Or(opts.ConnBuffer, DefaultConnBuffer),
	}
	c.rt = &authTransport{base: c.tr, host: hostOf(c.base), auth: c.auth}
	c.hc = &http.Client{Transport: c.rt}
	return c
}

func orDefault[T time.Duration | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// BaseURL is the server address the client talks to, without a trailing
// slash.
func (c *Client) BaseURL() string { return c.base }

// URL is the full URL of path on the server.
func (c *Client) URL(path string) string { return c.base + path }

// HTTPClient returns a new http.Client on the client's transport: the
// same connection pool, proxy policy and bearer token. It has no overall
// timeout (a stream lasts as long as its generation): set Timeout on it,
// or bound each request with its context.
func (c *Client) HTTPClient() *http.Client { return &http.Client{Transport: c.rt} }

// NewRequest builds a request for path on the server with the bearer
// token set. The caller sets the content type and the like.
func (c *Client) NewRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	return req, nil
}

// Do sends req on the client's transport and returns the response as it
// comes, whatever its status: the caller reads and closes the body.
func (c *Client) Do(req *http.Request) (*http.Response, error) { return c.hc.Do(req) }

// Close drops the client's idle connections.
func (c *Client) Close() { c.tr.CloseIdleConnections() }

// authTransport adds the bearer token to requests that lack it (those a
// caller such as go-retryablehttp built itself), but only to the server's
// own host: net/http drops Authorization on a redirect to another host,
// and re-adding it here would hand the key to that host.
type authTransport struct {
	base *http.Transport
	host string
	auth string
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.auth != "" && req.Header.Get("Authorization") == "" && strings.EqualFold(req.URL.Host, t.host) {
		// A RoundTripper must not change the caller's request.
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", t.auth)
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// pool.
func (t *authTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }
