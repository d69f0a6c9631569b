package health

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestGateConfirm: a 200 counts only once Confirm accepts it (issue 12,
// defect 1: the port may be held by another server); ErrNotYet keeps
// probing, any other error ends the wait with it.
func TestGateConfirm(t *testing.T) {
	h := newHealthServer(t, 200)
	var asked atomic.Int32
	g := newGate(h.URL, NewTracker(time.Now()))
	g.Confirm = func() error {
		if asked.Add(1) < 3 {
			return fmt.Errorf("no listener: %w", ErrNotYet)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if _, err := g.Wait(ctx); err != nil || asked.Load() != 3 {
		t.Errorf("got %v after %d confirmations, want ready after 3", err, asked.Load())
	}

	taken := errors.New("port held by pid 1")
	g = newGate(h.URL, NewTracker(time.Now()))
	g.Confirm = func() error { return taken }
	if _, err := g.Wait(ctx); !errors.Is(err, taken) {
		t.Errorf("got %v, want the Confirm error", err)
	}
}
