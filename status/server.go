package status

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server timeouts: a status client is a probe or a scrape, never a
// stream. A connection holds one of maxConns slots while it is open, so
// an idle one is closed soon (at once when a newcomer needs its slot): a
// scraper reconnects at its next interval.
const (
	readHeaderTimeout = 5 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 5 * time.Second
	maxHeaderBytes    = 16 << 10
)

// Options says what Listen serves.
type Options struct {
	// Addr is HOST:PORT (profiles.ListenAddr's form); port 0 picks one.
	Addr string
	// ProxyURL, when set, is the server's base URL whose sglang:* series
	// /metrics passes through (--status-proxy-metrics).
	ProxyURL string
	// Log hears why the proxy's reads fail (nil: nothing is logged).
	Log *slog.Logger
}

// Server is a launch's status endpoint.
type Server struct {
	state *State
	ln    net.Listener
	srv   *http.Server
	done  chan struct{}
}

// Listen binds the status endpoint and serves it in the background until
// Close. It fails at once when the address cannot be bound, so a launch
// can refuse to start rather than run unobservable.
func Listen(s *State, opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("status endpoint: %w", err)
	}
	ln = newLimitListener(ln, maxConns)
	srv := &Server{state: s, ln: ln, done: make(chan struct{})}
	var g prometheus.Gatherer = s.Registry()
	if opts.ProxyURL != "" {
		// The proxy first: it sets sglaunch_sglang_metrics_up, which the
		// registry then reports.
		g = prometheus.Gatherers{newProxy(s, opts.ProxyURL, opts.Log), s.Registry()}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /livez", srv.livez)
	mux.HandleFunc("GET /readyz", srv.readyz)
	mux.HandleFunc("GET /status", srv.status)
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	srv.srv = &http.Server{
		Handler:           markBusy(mux),
		ConnContext:       withConn,
		ReadHeaderTimeout: readHeaderTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	go func() {
		defer close(srv.done)
		_ = srv.srv.Serve(ln) // ends with Close
	}()
	return srv, nil
}

// URL is where the endpoint answers: http://HOST:PORT.
func (srv *Server) URL() string { return "http://" + srv.ln.Addr().String() }

// Addr is the bound address.
func (srv *Server) Addr() string { return srv.ln.Addr().String() }

// Close stops serving, letting requests in flight finish within ctx.
func (srv *Server) Close(ctx context.Context) error {
	err := srv.srv.Shutdown(ctx)
	if err != nil {
		_ = srv.srv.Close()
	}
	<-srv.done
	return err
}

func (srv *Server) livez(w http.ResponseWriter, _ *http.Request) {
	if !srv.state.Live() {
		text(w, http.StatusServiceUnavailable, "exited: the supervision loop has ended\n")
		return
	}
	text(w, http.StatusOK, "ok\n")
}

func (srv *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	ok, phase, why := srv.state.ReadyNow()
	if ok {
		text(w, http.StatusOK, "ready\n")
		return
	}
	w.Header().Set("X-Sglaunch-Phase", phase)
	text(w, http.StatusServiceUnavailable, why+"\n")
}

func (srv *Server) status(w http.ResponseWriter, _ *http.Request) {
	snap := srv.state.Snapshot()
	snap.StatusURL = srv.URL()
	b, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(append(b, '\n'))
}

func text(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(body))
}
