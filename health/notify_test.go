package health

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listenNotify binds a unixgram socket like systemd's and points
// NOTIFY_SOCKET at it; messages arrive on the returned channel.
func listenNotify(t *testing.T) <-chan string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	out := make(chan string, 100)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			out <- string(buf[:n])
		}
	}()
	return out
}

func next(t *testing.T, msgs <-chan string) string {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-time.After(testWait):
		t.Fatal("no notify message")
		return ""
	}
}

func TestNotifierMessages(t *testing.T) {
	msgs := listenNotify(t)
	n := NewNotifier(nil)
	if !n.Enabled() {
		t.Fatal("notifier disabled with NOTIFY_SOCKET set")
	}
	n.Status("loading\nweights")
	n.Extend(90 * time.Second)
	n.Ready("ready: demo")
	n.Watchdog()
	n.Stopping("stopping")
	n.Stopping("stopping again")
	want := []string{
		"STATUS=loading weights",
		"EXTEND_TIMEOUT_USEC=90000000",
		"READY=1\nSTATUS=ready: demo",
		"WATCHDOG=1",
		"STOPPING=1\nSTATUS=stopping",
	}
	for _, w := range want {
		if got := next(t, msgs); got != w {
			t.Errorf("got %q, want %q", got, w)
		}
	}
	select {
	case m := <-msgs:
		t.Errorf("STOPPING sent twice: extra %q", m)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestNotifierWithoutSocket(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	n := NewNotifier(nil)
	if n.Enabled() {
		t.Error("enabled without NOTIFY_SOCKET")
	}
	n.Ready("x") // must not fail or block
	var nilN *Notifier
	nilN.Status("x")
}

func TestWatchdogInterval(t *testing.T) {
	t.Setenv("WATCHDOG_USEC", "4000000")
	t.Setenv("WATCHDOG_PID", "")
	if got := WatchdogInterval(); got != 4*time.Second {
		t.Errorf("got %v, want 4s", got)
	}
	t.Setenv("WATCHDOG_PID", "1")
	if got := WatchdogInterval(); got != 0 {
		t.Errorf("watchdog meant for pid 1: got %v, want 0", got)
	}
}

func TestGateNotifiesProgress(t *testing.T) {
	msgs := listenNotify(t)
	h := newHealthServer(t, 503)
	tr := NewTracker(time.Now())
	g := newGate(h.URL, tr)
	g.Notifier = NewNotifier(nil)
	g.StallTimeout = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	done := waitInBackground(ctx, g)
	var seen []string
	expect := func(prefix, contains string) {
		t.Helper()
		m := next(t, msgs)
		seen = append(seen, m)
		if !strings.HasPrefix(m, prefix) || !strings.Contains(m, contains) {
			t.Fatalf("got %q, want %s...%s", m, prefix, contains)
		}
	}
	expect("STATUS=loading: ", "starting")
	expect("EXTEND_TIMEOUT_USEC=", "")
	if v := strings.TrimPrefix(seen[1], "EXTEND_TIMEOUT_USEC="); len(v) < len("3600000000") {
		t.Errorf("extension %q is shorter than the stall budget %v", seen[1], g.StallTimeout)
	}
	tr.Observe([]byte("[x TP0] Load weight begin.\n"))
	expect("STATUS=loading: ", PhaseLoadingWeights)
	h.set(200)
	if err := <-done; err != nil {
		t.Fatalf("Wait: %v", err)
	}
	for _, m := range seen {
		if strings.Contains(m, "READY=1") {
			t.Errorf("the gate itself sent %q; READY=1 is the caller's", m)
		}
	}
}
