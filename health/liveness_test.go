package health

import (
	"context"
	"testing"
	"time"
)

func TestLivenessCountsConsecutiveFailures(t *testing.T) {
	h := newHealthServer(t, 200, 503, 503, 200, 503, 503, 503)
	l := &Liveness{URL: h.URL + "/health", Interval: 5 * time.Millisecond, Timeout: 5 * time.Second, Threshold: 3}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	var got []int
	l.Run(ctx, func(c Check) {
		got = append(got, c.Failures)
		if c.Unhealthy(l.Threshold) {
			cancel()
		}
	})
	want := []int{0, 1, 2, 0, 1, 2, 3}
	if len(got) != len(want) {
		t.Fatalf("got failures %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got failures %v, want %v", got, want)
		}
	}
}

func TestLivenessTimeoutIsFailure(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	srv := newHangingServer(t, block)
	l := &Liveness{URL: srv + "/health", Interval: time.Millisecond, Timeout: 50 * time.Millisecond, Threshold: 1}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	var c Check
	l.Run(ctx, func(got Check) { c = got; cancel() })
	if c.OK() || c.Reason() != "timed out" {
		t.Errorf("got ok=%v reason %q, want a timeout", c.OK(), c.Reason())
	}
}
