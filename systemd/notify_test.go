package systemd

import (
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func TestNotifierMessages(t *testing.T) {
	msgs := testkit.ListenNotify(t)
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
		if got := testkit.NextNotify(t, msgs, notifyWait); got != w {
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

// notifyWait bounds the wait for one notify message: generous, so that a
// loaded machine never fails the test.
const notifyWait = 20 * time.Second
