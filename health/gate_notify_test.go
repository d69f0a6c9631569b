package health

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/systemd"
)

func TestGateNotifiesProgress(t *testing.T) {
	msgs := testkit.ListenNotify(t)
	h := newHealthServer(t, 503)
	tr := NewTracker(time.Now())
	g := newGate(h.URL, tr)
	g.Notifier = systemd.NewNotifier(nil)
	g.StallTimeout = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	done := waitInBackground(ctx, g)
	var seen []string
	expect := func(prefix, contains string) {
		t.Helper()
		m := testkit.NextNotify(t, msgs, testWait)
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
