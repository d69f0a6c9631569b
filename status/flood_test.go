package status

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// TestStatusFloodCannotExhaustFiles: a connection flood on the status
// endpoint (no cap, idle connections held 2 minutes) used up sglaunch's
// file descriptors until its liveness probes failed with "too many open
// files" and on_unhealthy: exit killed a healthy server. Now at most
// maxConns connections are open at once (the rest wait in the kernel's
// queue), idle ones close after idleTimeout, and the endpoint answers
// again once the flood goes.
func TestStatusFloodCannotExhaustFiles(t *testing.T) {
	srv := listen(t, NewState(testInfo()), Options{})
	before := openFiles(t)
	const flood = 600
	var conns []net.Conn
	for range flood {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// Give the server time to accept what it will. The flood's own
	// sockets are files of this process too: subtract them.
	time.Sleep(time.Second)
	server := openFiles(t) - before - flood
	if server > maxConns+8 {
		t.Errorf("the endpoint holds %d descriptors for %d connections, want at most about %d", server, flood, maxConns)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(srv.URL() + "/livez")
	if err != nil {
		t.Fatalf("after the flood: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the flood: /livez %d, want 200", resp.StatusCode)
	}
}

// TestFloodCannotStarveProbes: with every slot held by idle peers, a
// probe waited in the kernel's queue until one timed out (5 s a slot),
// so under a steady flood /livez never answered and a kubelet would
// restart a healthy pod. Now a newcomer takes the slot of the peer idle
// longest: 200 peers that reconnect as soon as they are dropped, and
// /livez answers within 2 s, never failing as often in a row as a
// kubelet's default failureThreshold (3). A probe accepted but not yet
// read when the machine stalls can lose its slot like an idle peer (a
// full -race run saw one EOF in 15); the kubelet absorbs one.
func TestFloodCannotStarveProbes(t *testing.T) {
	srv := listen(t, NewState(testInfo()), Options{})
	defer reconnectingFlood(srv.Addr(), 200)()
	time.Sleep(500 * time.Millisecond) // every slot taken
	client := &http.Client{Timeout: 2 * time.Second}
	var slowest time.Duration
	answered, run, worst := 0, 0, 0
	for range 15 {
		start := time.Now()
		ok := false
		if resp, err := client.Get(srv.URL() + "/livez"); err == nil {
			resp.Body.Close()
			ok = resp.StatusCode == http.StatusOK
		}
		slowest = max(slowest, time.Since(start))
		if ok {
			answered, run = answered+1, 0
		} else {
			run++
			worst = max(worst, run)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if worst >= 3 || answered < 12 {
		t.Errorf("/livez answered %d of 15 probes under the flood, %d failed in a row; want at least 12, and never 3 in a row (a kubelet would restart the pod)", answered, worst)
	}
	t.Logf("15 probes of /livez under a flood of 200 reconnecting idle peers: %d answered, slowest %v", answered, slowest)
}

// TestFloodSparesRequestsInFlight: the eviction takes only connections
// outside a handler: a scrape whose proxied read takes 1 s completes
// while 200 peers flood the endpoint.
func TestFloodSparesRequestsInFlight(t *testing.T) {
	backend := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Second)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(sglangMetrics))
	}))
	srv := listen(t, NewState(testInfo()), Options{ProxyURL: backend})
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		client := &http.Client{Timeout: 10 * time.Second}
		resp, err := client.Get(srv.URL() + "/metrics")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		done <- result{string(b), err}
	}()
	time.Sleep(200 * time.Millisecond) // the scrape is in its handler
	stop := reconnectingFlood(srv.Addr(), 200)
	defer stop()
	r := <-done
	if r.err != nil {
		t.Fatalf("the scrape in flight during the flood: %v", r.err)
	}
	if _, ok := parse(t, r.text)["sglang:num_running_reqs"]; !ok {
		t.Errorf("the scrape in flight during the flood lacks sglang:num_running_reqs")
	}
}

// reconnectingFlood has n peers connect to addr and say nothing, each
// connecting again as soon as the endpoint drops it; the returned
// function ends them.
func reconnectingFlood(addr string, n int) (stop func()) {
	quit := make(chan struct{})
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		open = map[net.Conn]bool{}
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					select {
					case <-quit:
						return
					default:
						continue
					}
				}
				mu.Lock()
				select {
				case <-quit:
					mu.Unlock()
					c.Close()
					return
				default:
				}
				open[c] = true
				mu.Unlock()
				_, _ = c.Read(make([]byte, 1)) // until the server drops it
				mu.Lock()
				delete(open, c)
				mu.Unlock()
				c.Close()
			}
		}()
	}
	return func() {
		mu.Lock()
		close(quit)
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
}

// TestIdleConnectionsAreClosed: an idle connection (no request, or a
// keep-alive after one) frees its slot within the header and idle
// timeouts, so a handful of idle peers cannot hold the endpoint.
func TestIdleConnectionsAreClosed(t *testing.T) {
	srv := listen(t, NewState(testInfo()), Options{})
	c, err := net.Dial("tcp", srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(readHeaderTimeout + 10*time.Second))
	start := time.Now()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the server sent bytes to a peer that asked nothing")
	}
	if waited := time.Since(start); waited > readHeaderTimeout+5*time.Second {
		t.Errorf("an idle connection was held %v, want it closed after about %v", waited, readHeaderTimeout)
	}
}

// TestProxyScrapesShareOneRead: 16 concurrent scrapes with
// --status-proxy-metrics re-read and re-parsed the server's whole
// /metrics each (300k series: 22 MB to 1.6 GB). Scrapes within
// proxyCacheFor now share one read.
func TestProxyScrapesShareOneRead(t *testing.T) {
	var reads atomic.Int32
	backend := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reads.Add(1)
		time.Sleep(50 * time.Millisecond)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(sglangMetrics))
	}))
	srv := listen(t, NewState(testInfo()), Options{ProxyURL: backend})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, text := get(t, srv.URL()+"/metrics")
			if _, ok := parse(t, text)["sglang:num_running_reqs"]; code != 200 || !ok {
				t.Errorf("scrape: %d, sglang:num_running_reqs missing", code)
			}
		}()
	}
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("16 concurrent scrapes read the server's /metrics %d times, want 1", n)
	}
}

func openFiles(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestProxyRefusesOversizedMetrics: the proxy read at most 16 MiB of the
// server's /metrics and parsed what it got, so an answer cut at a line
// boundary passed through as if whole (up 1, half the series), and any
// other cut failed with nobody told why. An answer over the cap is now
// refused whole, with or without a Content-Length: sglaunch's /metrics
// still answers, small, with sglaunch_sglang_metrics_up 0 and
// sglaunch_sglang_metrics_errors_total{reason="too_large"}, and the log
// says so once, not at every read.
func TestProxyRefusesOversizedMetrics(t *testing.T) {
	// 32-byte lines: 16 MiB ends exactly between two of them.
	const lineBytes = 32
	lines := proxyMaxBytes/lineBytes + proxyMaxBytes/lineBytes/8
	var body strings.Builder
	for i := range lines {
		fmt.Fprintf(&body, "sglang:big{i=\"%0*d\"} 1\n", lineBytes-len(`sglang:big{i=""} 1`)-1, i)
	}
	big := body.String()
	for _, tt := range []struct {
		name   string
		length bool // send a Content-Length
	}{{"chunked", false}, {"content-length", true}} {
		t.Run(tt.name, func(t *testing.T) {
			backend := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
				if tt.length {
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				}
				_, _ = io.WriteString(w, big)
			}))
			logs := &testkit.SyncBuffer{}
			srv := listen(t, NewState(testInfo()), Options{ProxyURL: backend, Log: slog.New(slog.NewTextHandler(logs, nil))})
			for read := 1; read <= 2; read++ {
				if read == 2 {
					time.Sleep(proxyCacheFor) // the next scrape reads again
				}
				code, text := get(t, srv.URL()+"/metrics")
				fams := parse(t, text)
				if _, ok := fams["sglang:big"]; ok {
					t.Fatalf("read %d: %d of the oversized answer's series passed through", read, len(fams["sglang:big"].Metric))
				}
				if code != 200 || len(text) > 1<<20 {
					t.Errorf("read %d: /metrics %d with %d bytes, want 200 and sglaunch's own series only", read, code, len(text))
				}
				if v, ok := value(fams, "sglaunch_sglang_metrics_up", nil); !ok || v != 0 {
					t.Errorf("read %d: sglaunch_sglang_metrics_up = %v (%v), want 0", read, v, ok)
				}
				if v, _ := value(fams, "sglaunch_sglang_metrics_errors_total", map[string]string{"reason": "too_large"}); v != float64(read) {
					t.Errorf("read %d: sglaunch_sglang_metrics_errors_total{reason=\"too_large\"} = %v, want %d", read, v, read)
				}
			}
			if n := strings.Count(logs.String(), "larger than 16 MiB"); n != 1 {
				t.Errorf("the log says %d times that the answer is too large, want once:\n%s", n, logs.String())
			}
		})
	}
}
