package loadgen

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// Generous bounds: real timing on a loaded 2-core machine. The exact
// metric math is checked with fixed times in metrics_test.go and
// stream_test.go; these tests check the runs' shape.
const (
	runTimeout = 60 * time.Second
	lateSlack  = 500 * time.Millisecond // how late a chunk may be
)

func stub(t *testing.T, s *loadgentest.Server) *Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c := NewClient(srv.URL, s.APIKey, 16)
	t.Cleanup(c.Close)
	return c
}

func runCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestRunClosedLoop(t *testing.T) {
	for _, api := range APIs {
		t.Run(string(api), func(t *testing.T) {
			s := &loadgentest.Server{TTFT: 30 * time.Millisecond, ITL: 5 * time.Millisecond}
			c := stub(t, s)
			load := Load{API: api, InputLen: 16, OutputLen: 10, Requests: 12, Warmup: 2, Seed: 1}
			res, err := c.Run(runCtx(t), load, Level{Concurrency: 4}, nil)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			m := res.Metrics
			if m.Completed != 12 || m.Failed != 0 {
				t.Errorf("got %d completed, %d failed; want 12, 0 (warm-up not counted)", m.Completed, m.Failed)
			}
			if got := s.Requests(); got != 14 {
				t.Errorf("server saw %d requests, want 12 + 2 warm-up", got)
			}
			if got := s.MaxInFlight(); got > 4 {
				t.Errorf("server saw %d requests at once, want at most 4", got)
			}
			if m.TotalOutputTokens != 120 {
				t.Errorf("got %d output tokens, want 120", m.TotalOutputTokens)
			}
			// The server sends token i at arrival + TTFT + i*ITL, after the
			// client started its clock: nothing can be measured early.
			if m.TTFT.Median < 30 || m.TTFT.Median > 30+ms(lateSlack) {
				t.Errorf("median TTFT %.2f ms, want 30 ms (+ at most %v)", m.TTFT.Median, lateSlack)
			}
			if m.E2E.Median < 30+9*5 {
				t.Errorf("median E2E %.2f ms, want at least 75 ms", m.E2E.Median)
			}
			if m.ITL.Median <= 0 || m.ITL.Median > 5+ms(lateSlack) {
				t.Errorf("median ITL %.2f ms, want about 5 ms", m.ITL.Median)
			}
			if m.DecodeRate != 0 {
				t.Errorf("decode rate %.1f set for concurrency 4, want it only at 1", m.DecodeRate)
			}
		})
	}
}

func TestRunSingleStreamDecodeRate(t *testing.T) {
	s := &loadgentest.Server{TTFT: 20 * time.Millisecond, ITL: 4 * time.Millisecond}
	c := stub(t, s)
	res, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 8, OutputLen: 20, Requests: 2}, Level{Concurrency: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	// Tokens after the first over the time after the first token.
	want := 19 / ((m.E2E.Mean - m.TTFT.Mean) / 1000)
	if m.DecodeRate <= 0 || math.Abs(m.DecodeRate-want) > 1e-6*want {
		t.Errorf("decode rate %.3f tok/s, want %.3f", m.DecodeRate, want)
	}
	if m.Completed != 2 || s.MaxInFlight() != 1 {
		t.Errorf("got %d completed with %d in flight, want 2 one at a time", m.Completed, s.MaxInFlight())
	}
}

func TestRunOpenLoop(t *testing.T) {
	s := &loadgentest.Server{TTFT: 20 * time.Millisecond, ITL: 10 * time.Millisecond}
	c := stub(t, s)
	load := Load{API: Generate, InputLen: 8, OutputLen: 10, Requests: 20, Seed: 5}
	res, err := c.Run(runCtx(t), load, Level{Rate: 200, Concurrency: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Completed != 20 {
		t.Errorf("got %d completed, want 20", res.Metrics.Completed)
	}
	if got := s.MaxInFlight(); got > 3 {
		t.Errorf("server saw %d requests at once, want at most the cap of 3", got)
	}
}

func TestRunDuration(t *testing.T) {
	s := &loadgentest.Server{TTFT: 5 * time.Millisecond, ITL: time.Millisecond}
	c := stub(t, s)
	const d = 300 * time.Millisecond
	res, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 8, OutputLen: 5, Duration: d}, Level{Concurrency: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Completed < 2 {
		t.Errorf("got %d completed in %v, want several", res.Metrics.Completed, d)
	}
	if got := res.Ended.Sub(res.Started); got < d {
		t.Errorf("level took %v, want at least %v", got, d)
	}
	if int64(res.Metrics.Completed) != s.Requests() {
		t.Errorf("completed %d of %d requests sent; in-flight requests at the end must be awaited", res.Metrics.Completed, s.Requests())
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name    string
		server  *loadgentest.Server
		key     string
		warmup  int
		wantErr error
		wantMsg string
	}{
		{"HTTP error", &loadgentest.Server{Status: 500}, "", 0, ErrNoneCompleted, "HTTP 500: stub failure"},
		{"warm-up fails", &loadgentest.Server{Status: 503}, "", 1, ErrWarmup, "HTTP 503"},
		{"stream dropped", &loadgentest.Server{FailAfter: 2, ITL: time.Millisecond}, "", 0, ErrNoneCompleted, "the server closed the connection mid-response"},
		{"missing API key", &loadgentest.Server{APIKey: "secret"}, "", 0, ErrNoneCompleted, "HTTP 401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.server)
			defer srv.Close()
			c := NewClient(srv.URL, tt.key, 2)
			defer c.Close()
			res, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 4, OutputLen: 5, Requests: 3, Warmup: tt.warmup}, Level{Concurrency: 2}, nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q lacks %q", err, tt.wantMsg)
			}
			if tt.warmup == 0 && (res.Metrics.Failed != 3 || len(res.Errors) == 0 || res.Errors[0].Count != 3) {
				t.Errorf("got %d failed, errors %v; want 3 failures of one kind", res.Metrics.Failed, res.Errors)
			}
		})
	}
}

func TestRunAPIKey(t *testing.T) {
	s := &loadgentest.Server{APIKey: "secret"}
	c := stub(t, s)
	if _, err := c.Run(runCtx(t), Load{API: Chat, InputLen: 4, OutputLen: 3, Requests: 2}, Level{Concurrency: 1}, nil); err != nil {
		t.Fatalf("with the key: %v", err)
	}
}

func TestRunServerGone(t *testing.T) {
	srv := httptest.NewServer(&loadgentest.Server{})
	url := srv.URL
	srv.Close()
	c := NewClient(url, "", 2)
	defer c.Close()
	start := time.Now()
	_, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 4, OutputLen: 5, Requests: 50}, Level{Concurrency: 2}, nil)
	if !errors.Is(err, ErrServerGone) {
		t.Fatalf("got %v, want ErrServerGone", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v to give up on a closed port", time.Since(start))
	}
}

func TestRunCancelled(t *testing.T) {
	s := &loadgentest.Server{TTFT: 10 * time.Millisecond, ITL: 50 * time.Millisecond}
	c := stub(t, s)
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	time.AfterFunc(200*time.Millisecond, func() { cancel(stop) })
	start := time.Now()
	_, err := c.Run(ctx, Load{API: Generate, InputLen: 4, OutputLen: 1000, Requests: 4}, Level{Concurrency: 2}, nil)
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the cancel cause", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %v to stop after cancel", time.Since(start))
	}
}

func TestRunBadLoad(t *testing.T) {
	c := NewClient("http://127.0.0.1:1", "", 1)
	for _, tt := range []struct {
		load Load
		lvl  Level
	}{
		{Load{API: "x", InputLen: 1, OutputLen: 1, Requests: 1}, Level{Concurrency: 1}},
		{Load{API: Generate, InputLen: 1, OutputLen: 1}, Level{Concurrency: 1}},
		{Load{API: Generate, InputLen: 1, OutputLen: 1, Requests: 1}, Level{}},
		{Load{API: Generate, InputLen: 0, OutputLen: 1, Requests: 1}, Level{Concurrency: 1}},
	} {
		if _, err := c.Run(t.Context(), tt.load, tt.lvl, nil); err == nil {
			t.Errorf("Run(%+v, %+v): got no error", tt.load, tt.lvl)
		}
	}
}

func TestProgress(t *testing.T) {
	for _, tty := range []bool{false, true} {
		s := &loadgentest.Server{TTFT: 5 * time.Millisecond, ITL: 10 * time.Millisecond}
		c := stub(t, s)
		var out testkit.SyncBuffer
		p := &Progress{W: &out, TTY: tty, Interval: 20 * time.Millisecond, Prefix: "wl"}
		if _, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 4, OutputLen: 30, Requests: 2}, Level{Concurrency: 1}, p); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if !strings.Contains(got, "wl c=1: 2 ok in ") || !strings.Contains(got, "decode ") {
			t.Errorf("tty=%v: no summary line in %q", tty, got)
		}
		if tty && !strings.Contains(got, "\r\x1b[2Kwl c=1 [") {
			t.Errorf("tty: no bar in %q", got)
		}
		if !tty && (!strings.Contains(got, "wl c=1: 0/2 requests") && !strings.Contains(got, "wl c=1: 1/2 requests")) {
			t.Errorf("plain: no periodic line in %q", got)
		}
		if !tty && strings.Contains(got, "\r") {
			t.Errorf("plain output has carriage returns: %q", got)
		}
	}
}
