package health

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestGateReportsEveryProbe(t *testing.T) {
	h := newHealthServer(t, 503, 500, 200)
	g := newGate(h.URL, NewTracker(time.Now()))
	var mu sync.Mutex
	var got []string
	g.OnProbe = func(c Check) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, c.Result())
		if c.Took <= 0 || c.At.IsZero() {
			t.Errorf("probe %s: took %v at %v, want both set", c.Result(), c.Took, c.At)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if _, err := g.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{ResultUnavailable, ResultHTTPError, ResultOK}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("reported %v, want %v", got, want)
	}
}

func TestCheckResults(t *testing.T) {
	closed := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(testkit.FreePort(t))) + "/health"
	block := make(chan struct{})
	defer close(block)
	hanging := newHangingServer(t, block) + "/health"
	for _, tt := range []struct {
		name, url, want string
	}{
		{"refused", closed, ResultRefused},
		{"timeout", hanging, ResultTimeout},
	} {
		l := &Liveness{URL: tt.url, Interval: time.Millisecond, Timeout: 100 * time.Millisecond, Threshold: 1}
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		var c Check
		l.Run(ctx, func(got Check) { c = got; cancel() })
		cancel()
		if c.Result() != tt.want {
			t.Errorf("%s: got %q (%v), want %q", tt.name, c.Result(), c.Err, tt.want)
		}
	}
	if (Check{}).Result() != ResultOK {
		t.Error("a passed probe is not ok")
	}
}

func TestHistoryLast(t *testing.T) {
	h := History{Dir: t.TempDir()}
	if _, ok := h.Last("fp"); ok {
		t.Fatal("Last of an empty history")
	}
	now := time.Now()
	for _, d := range []time.Duration{10 * time.Second, 20 * time.Second} {
		if err := h.Record("fp", testLoad(now, d, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if l, ok := h.Last("fp"); !ok || l.Seconds != 20 {
		t.Errorf("Last: got %+v, %v; want the 20 s load", l, ok)
	}
}
