package health

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds: these tests must not flake on a loaded 2-core machine.
const (
	testWait = 20 * time.Second
	// longPoll is a poll interval no test may wait out: a gate that
	// returns well before it must have been woken by something else.
	longPoll = time.Hour
)

// healthServer answers /health with the codes in order, repeating the
// last one, and counts the probes.
type healthServer struct {
	*httptest.Server
	mu    sync.Mutex
	codes []int
	probe atomic.Int32
	oks   atomic.Int32
}

func newHealthServer(t *testing.T, codes ...int) *healthServer {
	t.Helper()
	h := &healthServer{codes: codes}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.probe.Add(1)
		h.mu.Lock()
		code := h.codes[0]
		if len(h.codes) > 1 {
			h.codes = h.codes[1:]
		}
		h.mu.Unlock()
		if code == http.StatusOK {
			h.oks.Add(1)
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *healthServer) set(codes ...int) {
	h.mu.Lock()
	h.codes = codes
	h.mu.Unlock()
}

// waitInBackground runs g.Wait; its error arrives on the channel.
func waitInBackground(ctx context.Context, g *Gate) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := g.Wait(ctx)
		done <- err
	}()
	return done
}

func newGate(url string, tr *Tracker) *Gate {
	return &Gate{URL: url + "/health", PollInterval: 10 * time.Millisecond, RequestTimeout: 5 * time.Second, Tracker: tr}
}

func TestGateWaitsFor200(t *testing.T) {
	h := newHealthServer(t, 503, 503, 503, 200)
	g := newGate(h.URL, NewTracker(time.Now()))
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if _, err := g.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if n := h.probe.Load(); n != 4 {
		t.Errorf("got %d probes, want 4 (three 503s, then the 200)", n)
	}
	if got := g.LastProbe(); !strings.Contains(got, "503") {
		t.Errorf("last failed probe: got %q, want it to mention 503", got)
	}
}

func TestGateConnectionRefusedMeansLoading(t *testing.T) {
	// A port free a moment ago: connections are refused until the
	// "server" binds it.
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(testkit.FreePort(t)))
	g := newGate("http://"+addr, NewTracker(time.Now()))
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	done := waitInBackground(ctx, g)
	testkit.WaitFor(t, testWait, "a refused probe", func() bool { return strings.Contains(g.LastProbe(), "refused") })
	select {
	case err := <-done:
		t.Fatalf("gate returned while the port was closed: %v", err)
	default:
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
	l2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	go srv.Serve(l2)
	defer srv.Close()
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
}

func TestGateProbesAtOnceOnReadyLine(t *testing.T) {
	h := newHealthServer(t, 503)
	tr := NewTracker(time.Now())
	g := newGate(h.URL, tr)
	g.PollInterval = longPoll
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	done := waitInBackground(ctx, g)
	testkit.WaitFor(t, testWait, "the first probe", func() bool { return h.probe.Load() >= 1 })
	h.set(200)
	tr.Observe([]byte("[2026] " + ReadyLine + "\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
	case <-time.After(testWait):
		t.Fatal("the ready line did not trigger a probe")
	}
	if n := h.oks.Load(); n != 1 {
		t.Errorf("got %d successful probes, want exactly 1", n)
	}
}

func TestGateBudgets(t *testing.T) {
	tests := []struct {
		name   string
		gate   func(*Gate)
		chatty bool
		want   error
		text   string
	}{
		{"stall", func(g *Gate) { g.StallTimeout = 200 * time.Millisecond }, false, ErrStalled, "health.stall_timeout"},
		{"start timeout", func(g *Gate) { g.StartTimeout = 300 * time.Millisecond }, true, ErrStartTimeout, "health.start_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHealthServer(t, 503)
			tr := NewTracker(time.Now())
			g := newGate(h.URL, tr)
			tt.gate(g)
			ctx, cancel := context.WithTimeout(context.Background(), testWait)
			defer cancel()
			chatter := make(chan struct{})
			go func() {
				defer close(chatter)
				for tt.chatty && ctx.Err() == nil {
					tr.Observe([]byte("[x TP0] Load weight begin.\n"))
					time.Sleep(10 * time.Millisecond)
				}
			}()
			_, err := g.Wait(ctx)
			cancel()
			<-chatter
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.text) || !strings.Contains(err.Error(), "503") {
				t.Errorf("message %q: want it to name %s and the last probe", err, tt.text)
			}
		})
	}
}

func TestGateEndsWithContextCause(t *testing.T) {
	h := newHealthServer(t, 503)
	g := newGate(h.URL, NewTracker(time.Now()))
	g.PollInterval = longPoll
	ctx, cancel := context.WithCancelCause(context.Background())
	exited := errors.New("server exited")
	time.AfterFunc(50*time.Millisecond, func() { cancel(exited) })
	start := time.Now()
	_, err := g.Wait(ctx)
	if !errors.Is(err, exited) {
		t.Fatalf("got %v, want the cancel cause", err)
	}
	if d := time.Since(start); d > testWait {
		t.Errorf("took %v", d)
	}
}

func TestStatusTextETA(t *testing.T) {
	start := time.Now()
	advance := fakeClock(t, start)
	tr := NewTracker(start)
	advance(60 * time.Second)
	tr.Observe([]byte("[x TP0] Load weight end.\n"))
	tests := []struct {
		name string
		est  Estimate
		want string
	}{
		{"no history", Estimate{}, "loading: 60.0s elapsed, weights loaded, ETA unknown (no earlier load of this plan)"},
		{"history", Estimate{Typical: 100 * time.Second, Loads: 3}, "loading: 60.0s elapsed, weights loaded, ETA 40.0s (median of 3 earlier loads: 100.0s)"},
		{"overdue", Estimate{Typical: 50 * time.Second, Loads: 2}, "loading: 60.0s elapsed, weights loaded, ETA unknown (past the median of 2 earlier loads: 50.0s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &Gate{Tracker: tr, Estimate: tt.est}
			if got := g.statusText(timeNow()); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// newHangingServer accepts probes and answers none until block closes:
// a server hung in a collective.
func newHangingServer(t *testing.T, block <-chan struct{}) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(s.Close)
	return s.URL
}
