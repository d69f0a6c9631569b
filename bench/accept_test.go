package bench

import (
	"testing"

	"github.com/sglaunch/sglaunch/loadgen"
)

// TestLevelAcceptLengthPrefersRequests: the requests' figures win over
// the server's reading; the server's is the fallback, as before (mean of
// flushed rounds, else the last); the record says which and over how
// many requests.
func TestLevelAcceptLengthPrefersRequests(t *testing.T) {
	req := func(n, tokens, verify int) loadgen.SpecTotals {
		return loadgen.SpecTotals{Requests: n, Tokens: tokens, VerifyCt: verify}
	}
	tests := []struct {
		name     string
		rounds   []roundAccept
		flushed  bool
		want     float64
		source   string
		requests int
	}{
		{"requests pooled over rounds", []roundAccept{{requests: req(3, 93, 30)}, {requests: req(2, 602, 200), server: 3}}, true, 695.0 / 230, AcceptFromRequests, 5},
		{"server when no request says", []roundAccept{{server: 2}, {server: 3}}, true, 2.5, AcceptFromServer, 0},
		{"server, not flushed: last", []roundAccept{{server: 2}, {server: 3}}, false, 3, AcceptFromServer, 0},
		{"a round with nothing", []roundAccept{{server: 2}, {}}, true, 0, "", 0},
		{"nothing", nil, true, 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, source, n := levelAcceptLength(tt.rounds, tt.flushed)
			if v != tt.want || source != tt.source || n != tt.requests {
				t.Errorf("got %v from %q over %d, want %v from %q over %d", v, source, n, tt.want, tt.source, tt.requests)
			}
		})
	}
}
