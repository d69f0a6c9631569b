//go:build linux

package loadgen

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// reactorRunning reports whether c's reactor goroutine runs.
func reactorRunning(c *Client) bool {
	c.h1.re.mu.Lock()
	defer c.h1.re.mu.Unlock()
	return c.h1.re.run
}

// TestRawSocketsSeeTheEndWithTheData: an answer and the connection's end
// that arrive together (one edge for both) end the stream, every time.
func TestRawSocketsSeeTheEndWithTheData(t *testing.T) {
	srv := newRawServer(t, func(int, int) (string, bool) { return "HTTP/1.0 200 OK\r\n\r\n" + sseBody, true })
	c := NewClient(srv.url(), "", 1)
	defer c.Close()
	for i := range 50 {
		s := c.do(runCtx(t), Generate, []byte(`{}`), 4, 2, func(int) {})
		if !s.OK || s.OutputTokens != 2 {
			t.Fatalf("request %d: OK %v, %d tokens, error %q", i, s.OK, s.OutputTokens, s.Err)
		}
	}
	// Both chunks came in one write, so in one read with one stamp: the
	// stream told the reactor, every time.
	if c.h1.re.merges.Load() < 50 {
		t.Error("two chunks in one read did not reach the reactor")
	}
}

// TestRawSocketWaitEndsWithTheContext: a request whose server stops
// answering ends when its context does, and its socket is closed: before
// the head (the stream's goroutine waits) and in the body (the reactor
// follows it).
func TestRawSocketWaitEndsWithTheContext(t *testing.T) {
	for _, c := range []struct{ name, first string }{
		{"no answer", ""},
		{"stalled body", "HTTP/1.0 200 OK\r\n\r\ndata: {\"text\":\" tok\",\"meta_info\":{\"completion_tokens\":1}}\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := newRawServer(t, func(int, int) (string, bool) { return c.first, false })
			cl := NewClient(srv.url(), "", 1)
			defer cl.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			s := cl.do(ctx, Generate, []byte(`{}`), 4, 2, func(int) {})
			if s.OK || time.Since(start) > 10*time.Second {
				t.Fatalf("OK %v after %s, want a failed request soon after 200 ms (error %q)", s.OK, time.Since(start), s.Err)
			}
			if cl.h1.idleCount() != 0 {
				t.Error("a connection whose request was cut went back to the pool")
			}
			testkit.WaitFor(t, 10*time.Second, "the reactor to end with its last socket", func() bool { return !reactorRunning(cl) })
		})
	}
}

// TestReactorEndsAndComesBack: the reactor runs while a request does; a
// pooled connection is read again by a new one.
func TestReactorEndsAndComesBack(t *testing.T) {
	srv := newRawServer(t, func(int, int) (string, bool) {
		return okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 64), false
	})
	c := NewClient(srv.url(), "", 1)
	defer c.Close()
	for i := range 3 {
		s := c.do(runCtx(t), Generate, []byte(`{}`), 4, 2, func(int) {})
		if !s.OK {
			t.Fatalf("request %d: %s", i, s.Err)
		}
		if c.h1.idleCount() != 1 {
			t.Fatalf("request %d: %d idle connections, want the one kept alive", i, c.h1.idleCount())
		}
		if hc := c.h1.get(); hc.raw == nil {
			t.Fatal("the connection's socket stayed in Go's poller")
		} else {
			c.h1.put(hc)
		}
		testkit.WaitFor(t, 10*time.Second, "the reactor to end between requests", func() bool { return !reactorRunning(c) })
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("%d connections for 3 requests, want 1", n)
	}
}

// TestRawSocketWritesWhatDoesNotFit: a request larger than the socket's
// buffers waits for room and is sent whole.
func TestRawSocketWritesWhatDoesNotFit(t *testing.T) {
	srv := newRawServer(t, func(int, int) (string, bool) {
		return okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 64), true
	})
	c := NewClient(srv.url(), "", 1)
	defer c.Close()
	payload := []byte(`{"text":"` + strings.Repeat("a", 32<<20) + `"}`)
	s := c.do(runCtx(t), Generate, payload, 4, 2, func(int) {})
	if !s.OK {
		t.Fatalf("a 32 MiB request: %s", s.Err)
	}
}

// TestReactorPauses: the reactor pauses after a busy wait, or a quick
// one at a busy rate; a merge now and then (a server's two events back to
// back) leaves it pausing, merges above their share stop it for good.
func TestReactorPauses(t *testing.T) {
	var r reactor
	slow := 10 * batchPause // a wait long after the last: the rate is low
	tests := []struct {
		name  string
		n     int
		since time.Duration
		want  time.Duration
	}{
		{"a quiet round", batchMin - 1, slow, 0},
		{"a busy round", batchMin, slow, batchPause},
		{"one event right after the last wait, at a rate that fills a pause", 1, batchPause / batchMin, batchPause},
		{"one event a little later", 1, 2 * batchPause / batchMin, 0},
		{"a wait that filled its buffer", 512, time.Millisecond, 0}, // more are waiting
		{"a wait that found nothing", 0, 0, 0},
	}
	for _, tt := range tests {
		if p := r.pause(tt.n, 512, tt.since); p != tt.want {
			t.Errorf("%s (%d events, %s after the last wait): pause %s, want %s", tt.name, tt.n, tt.since, p, tt.want)
		}
	}
	for range mergeMin - 1 {
		r.noteMerge()
	}
	if p := r.pause(batchMin, 512, slow); p != batchPause {
		t.Errorf("%d merges: pause %s, want %s", mergeMin-1, p, batchPause)
	}
	for range 1000 { // 1,000 busy rounds: 8,000 more events
		r.pause(batchMin, 512, slow)
	}
	for range 20 {
		r.noteMerge()
	}
	if p := r.pause(batchMin, 512, slow); p != batchPause {
		t.Errorf("%d merges in %d events: pause %s, want %s", r.merges.Load(), r.events, p, batchPause)
	}
	for range int(mergeShare * float64(r.events)) {
		r.noteMerge()
	}
	if p := r.pause(batchMin, 512, slow); p != 0 {
		t.Errorf("%d merges in %d events: pause %s, want none", r.merges.Load(), r.events, p)
	}
	if p := r.pause(10*batchMin, 512, slow); p != 0 {
		t.Errorf("a busy round after the merges: pause %s, want none (for good)", p)
	}
}

// TestReactorSharesItselfWithAFlood: the reactor reads the streams' bodies
// itself, and a stream whose data never runs out gets it in steps of
// stepReads reads, so that another stream on the same reactor still ends
// on time.
func TestReactorSharesItselfWithAFlood(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var flooded atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				body, _ := io.ReadAll(r.Body)
				if !strings.Contains(string(body), "flood") {
					_, _ = io.WriteString(conn, "HTTP/1.0 200 OK\r\n\r\n"+sseBody)
					return
				}
				// Comments only: an endless stream that is never done.
				_, _ = io.WriteString(conn, "HTTP/1.0 200 OK\r\n\r\n")
				block := strings.Repeat(": ping\n\n", 512)
				for {
					n, err := io.WriteString(conn, block)
					flooded.Add(int64(n))
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	c := NewClient("http://"+ln.Addr().String(), "", 2)
	defer c.Close()
	floodCtx, stopFlood := context.WithCancel(t.Context())
	defer stopFlood()
	floodDone := make(chan *Sample, 1)
	go func() { floodDone <- c.do(floodCtx, Generate, []byte(`{"flood":1}`), 4, 2, func(int) {}) }()
	testkit.WaitFor(t, 10*time.Second, "the flood to be read", func() bool { return flooded.Load() > 4<<20 })
	done := make(chan *Sample, 1)
	go func() { done <- c.do(runCtx(t), Generate, []byte(`{}`), 4, 2, func(int) {}) }()
	select {
	case s := <-done:
		if !s.OK || s.OutputTokens != 2 {
			t.Errorf("the stream beside the flood: OK %v, %d tokens, error %q", s.OK, s.OutputTokens, s.Err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the stream beside the flood did not end within 10 s: the flood kept the reactor")
	}
	stopFlood()
	if s := <-floodDone; s.OK {
		t.Error("the flood, cut by its context, was counted complete")
	}
}
