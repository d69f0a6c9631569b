//go:build linux

package loadgen

import (
	"context"
	"strings"
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
	// stream told the reactor, which no longer pauses.
	if !c.h1.re.merged.Load() {
		t.Error("two chunks in one read did not reach the reactor")
	}
}

// TestRawSocketWaitEndsWithTheContext: a request whose server never
// answers ends when its context does, and its socket is closed.
func TestRawSocketWaitEndsWithTheContext(t *testing.T) {
	srv := newRawServer(t, func(int, int) (string, bool) {
		time.Sleep(time.Minute)
		return "", true
	})
	c := NewClient(srv.url(), "", 1)
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	s := c.do(ctx, Generate, []byte(`{}`), 4, 2, func(int) {})
	if s.OK || time.Since(start) > 10*time.Second {
		t.Fatalf("OK %v after %s, want a failed request soon after 200 ms (error %q)", s.OK, time.Since(start), s.Err)
	}
	if c.h1.idleCount() != 0 {
		t.Error("a connection whose request was cut went back to the pool")
	}
	testkit.WaitFor(t, 10*time.Second, "the reactor to end with its last socket", func() bool { return !reactorRunning(c) })
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

func TestReactorStopsPausingAtAMerge(t *testing.T) {
	var r reactor
	if p := r.pause(batchMin-1, 512); p != 0 {
		t.Errorf("a quiet round: pause %s, want none", p)
	}
	if p := r.pause(batchMin, 512); p != batchPause {
		t.Errorf("a busy round: pause %s, want %s", p, batchPause)
	}
	if p := r.pause(512, 512); p != 0 {
		t.Errorf("a wait that filled its buffer: pause %s, want none (more are waiting)", p)
	}
	r.noteMerge()
	if p := r.pause(10*batchMin, 512); p != 0 {
		t.Errorf("a busy round after a merge: pause %s, want none", p)
	}
}
