package status

import (
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
