package sglangapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds: these tests must not flake on a loaded 2-core machine.
const (
	testWait     = 20 * time.Second
	shortTimeout = 100 * time.Millisecond
)

// recorder is a stand-in SGLang server: it answers every known path with
// a small JSON body and records each request's path and Authorization.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD PATH AUTHORIZATION"
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Method+" "+req.URL.Path+" "+req.Header.Get("Authorization"))
		r.mu.Unlock()
		switch req.URL.Path {
		case "/health", "/flush_cache":
			w.WriteHeader(http.StatusOK)
		case "/v1/models":
			w.Write([]byte(`{"object":"list","data":[{"id":"m","root":"m","max_model_len":4096}]}`))
		default:
			w.Write([]byte(`{"version":"0.5.10"}`))
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// calls are every way a caller reaches the server.
var calls = []struct {
	name, want string // want: "METHOD PATH"
	call       func(context.Context, *Client) error
}{
	{"Health", "GET /health", func(ctx context.Context, c *Client) error { return c.Health(ctx) }},
	{"ServerInfo", "GET /server_info", func(ctx context.Context, c *Client) error { _, _, err := c.ServerInfo(ctx); return err }},
	{"ModelInfo", "GET /model_info", func(ctx context.Context, c *Client) error { _, _, err := c.ModelInfo(ctx); return err }},
	{"Models", "GET /v1/models", func(ctx context.Context, c *Client) error { _, err := c.Models(ctx); return err }},
	{"FlushCache", "POST /flush_cache", func(ctx context.Context, c *Client) error { return c.FlushCache(ctx) }},
	{"NewRequest+Do", "POST /generate", func(ctx context.Context, c *Client) error {
		req, err := c.NewRequest(ctx, http.MethodPost, "/generate", strings.NewReader("{}"))
		if err != nil {
			return err
		}
		return doAndClose(c.Do(req))
	}},
	// A request the caller built without NewRequest, as go-retryablehttp
	// does, on HTTPClient's transport.
	{"HTTPClient", "GET /health_generate", func(ctx context.Context, c *Client) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL("/health_generate"), nil)
		if err != nil {
			return err
		}
		return doAndClose(c.HTTPClient().Do(req))
	}},
}

func doAndClose(resp *http.Response, err error) error {
	if err != nil {
		return err
	}
	resp.Body.Close()
	return CheckResponse(resp)
}

func TestTokenOnEveryRequest(t *testing.T) {
	for _, key := range []string{"K", ""} {
		for _, tt := range calls {
			t.Run(tt.name+"/key="+key, func(t *testing.T) {
				r := newRecorder(t)
				c := New(r.URL, Options{APIKey: key})
				defer c.Close()
				if err := tt.call(t.Context(), c); err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				want := tt.want + " "
				if key != "" {
					want += "Bearer " + key
				}
				got := r.requests()
				if len(got) != 1 || got[0] != want {
					t.Errorf("got requests %q, want [%q]", got, want)
				}
			})
		}
	}
}

// A redirect to another host must not carry the key there: net/http
// drops Authorization, and the transport must not put it back.
func TestTokenNotSentToAnotherHost(t *testing.T) {
	other := newRecorder(t)
	otherURL, _ := url.Parse(other.URL)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "http://localhost:"+otherURL.Port()+"/server_info", http.StatusFound)
	}))
	defer redirect.Close()
	c := New(redirect.URL, Options{APIKey: "K"})
	if _, _, err := c.ServerInfo(t.Context()); err != nil {
		t.Fatalf("ServerInfo: %v", err)
	}
	got := other.requests()
	if len(got) != 1 || got[0] != "GET /server_info " {
		t.Errorf("the other host got %q, want one request without Authorization", got)
	}
}

// deadProxy points envProxy at a port nothing listens on, as an
// HTTP_PROXY left over from another network would.
func deadProxy(t *testing.T) *url.URL {
	t.Helper()
	dead := &url.URL{Scheme: "http", Host: "127.0.0.1:" + strconv.Itoa(testkit.FreePort(t))}
	t.Setenv("HTTP_PROXY", dead.String())
	t.Setenv("http_proxy", dead.String())
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	// net/http reads the variables once per process; read them per
	// request here, and for every host, loopback included, so that only
	// the client's own rule keeps loopback off the proxy.
	saved := envProxy
	envProxy = func(*http.Request) (*url.URL, error) { return url.Parse(os.Getenv("HTTP_PROXY")) }
	t.Cleanup(func() { envProxy = saved })
	return dead
}

func TestLoopbackBypassesProxy(t *testing.T) {
	deadProxy(t)
	r := newRecorder(t)
	u, _ := url.Parse(r.URL)
	for _, base := range []string{r.URL, "http://localhost:" + u.Port()} {
		t.Run(base, func(t *testing.T) {
			c := New(base, Options{})
			defer c.Close()
			if _, _, err := c.ServerInfo(t.Context()); err != nil {
				t.Errorf("ServerInfo through a dead HTTP_PROXY: %v", err)
			}
		})
	}
}

func TestRemoteHostUsesEnvProxy(t *testing.T) {
	var mu sync.Mutex
	var got []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		got = append(got, req.URL.String()+" "+req.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"version":"via proxy"}`))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	saved := envProxy
	envProxy = func(*http.Request) (*url.URL, error) { return pu, nil }
	defer func() { envProxy = saved }()

	c := New("http://sglang.invalid:30000", Options{APIKey: "K"})
	info, _, err := c.ServerInfo(t.Context())
	if err != nil {
		t.Fatalf("ServerInfo via the proxy: %v", err)
	}
	if info["version"] != "via proxy" {
		t.Errorf("got version %v, want the proxy's answer", info["version"])
	}
	want := "http://sglang.invalid:30000/server_info Bearer K"
	if len(got) != 1 || got[0] != want {
		t.Errorf("the proxy got %q, want [%q]", got, want)
	}
}

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.3.2.1", true},
		{"::1", true},
		{"localhost", true},
		{"LocalHost.", true},
		{"gpu.localhost", true},
		{"0.0.0.0", true},
		{"::", true},
		{"10.0.0.5", false},
		{"192.168.1.2", false},
		{"gpu-node-01", false},
		{"localhost.example.com", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if got := IsLoopback(tt.host); got != tt.want {
				t.Errorf("IsLoopback(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestHealthRefusedIsNotAStatus(t *testing.T) {
	c := New("http://127.0.0.1:"+strconv.Itoa(testkit.FreePort(t)), Options{})
	err := c.Health(t.Context())
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("got %v, want connection refused", err)
	}
	if code := StatusCode(err); code != 0 {
		t.Errorf("StatusCode = %d, want 0 for a refused connection", code)
	}
}

func TestHealthStatus(t *testing.T) {
	tests := []struct {
		code int
		ok   bool
	}{
		{http.StatusOK, true},
		{http.StatusServiceUnavailable, false},
		{http.StatusNotFound, false},
		{http.StatusNoContent, false},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.code) }))
			defer srv.Close()
			err := New(srv.URL, Options{}).Health(t.Context())
			if tt.ok {
				if err != nil {
					t.Errorf("Health: %v, want nil", err)
				}
				return
			}
			if got := StatusCode(err); got != tt.code {
				t.Errorf("StatusCode(%v) = %d, want %d", err, got, tt.code)
			}
			// The error names the URL and the status.
			want := "GET " + srv.URL + "/health: " + strconv.Itoa(tt.code) + " " + http.StatusText(tt.code)
			if err == nil || err.Error() != want {
				t.Errorf("got %v, want %q", err, want)
			}
		})
	}
}

// hangingServer accepts requests and never answers them.
func hangingServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestTimeoutPerCallKind(t *testing.T) {
	base := hangingServer(t)
	tests := []struct {
		name string
		opts Options
		call func(context.Context, *Client) error
	}{
		{"Health", Options{HealthTimeout: shortTimeout}, calls[0].call},
		{"ServerInfo", Options{InfoTimeout: shortTimeout}, calls[1].call},
		{"Models", Options{InfoTimeout: shortTimeout}, calls[3].call},
		{"FlushCache", Options{InfoTimeout: shortTimeout}, calls[4].call},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), testWait)
			defer cancel()
			start := time.Now()
			err := tt.call(ctx, New(base, tt.opts))
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("got %v, want a deadline error", err)
			}
			if ctx.Err() != nil || time.Since(start) >= testWait/2 {
				t.Errorf("took %s: the call's own timeout did not end it", time.Since(start))
			}
		})
	}
}

// SGLang's /health may take up to SGLANG_HEALTH_CHECK_TIMEOUT (20 s) on a
// healthy server; a shorter client timeout fails it.
func TestDefaultHealthTimeoutAboveSGLangs(t *testing.T) {
	if DefaultHealthTimeout <= 20*time.Second {
		t.Errorf("DefaultHealthTimeout = %s, want above 20s", DefaultHealthTimeout)
	}
	if c := New("http://h:1", Options{}); c.health != DefaultHealthTimeout || c.info != DefaultInfoTimeout || c.maxBody != DefaultMaxBodyBytes {
		t.Errorf("zero Options: got health %s info %s body %d, want the defaults", c.health, c.info, c.maxBody)
	}
}
