package loadgen

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestH1ReadsCarryArrivalStamps: on Linux a stream's socket leaves Go's
// poller and its reads carry the kernel's receive stamp, taken before
// the read returned.
func TestH1ReadsCarryArrivalStamps(t *testing.T) {
	srv := newRawServer(t, func(int, int) (string, bool) {
		time.Sleep(20 * time.Millisecond) // the answer arrives while the client waits
		return okHead("Transfer-Encoding: chunked\r\n") + chunked(sseBody, 64), true
	})
	c := newH1Client(srv.url(), "", 1)
	ctx := context.Background()
	before := time.Now()
	hc, _, err := c.roundTrip(ctx, http.MethodPost, "/generate", []byte(`{}`), func() {})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	defer hc.close()
	hc.release()
	if hc.raw == nil {
		t.Fatal("the connection's socket stayed in Go's poller")
	}
	if hc.arrived.IsZero() || hc.arrived.Before(before.Add(-time.Second)) || hc.arrived.After(after) {
		t.Errorf("arrival %v, want a stamp between %v and %v", hc.arrived, before, after)
	}
}
