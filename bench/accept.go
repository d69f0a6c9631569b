package bench

import (
	"context"

	"github.com/sglaunch/sglaunch/loadgen"
)

// Where a level's accept length came from (LevelRecord.AcceptSource).
const (
	// AcceptFromRequests: the requests' own meta_info (or the OpenAI
	// endpoints' sglext.spec_tokens_details), exact per request and
	// pooled as output tokens over verify steps.
	AcceptFromRequests = "meta_info"
	// AcceptFromServer: /server_info's avg_spec_accept_length, the
	// fallback. SGLang refreshes it only every --decode-log-interval
	// (40) decode batches and has none before the first refresh, so a
	// short round reads nothing and a long one loses its last batches.
	AcceptFromServer = "server_info"
)

// roundAccept is what one round says of the accept length: its requests'
// figures, and the server's average read after it (0: none).
type roundAccept struct {
	requests loadgen.SpecTotals
	server   float64
}

// newRoundAccept pools a finished round's requests and, only when none
// of them carried the figures, reads the server's average.
func newRoundAccept(ctx context.Context, client *loadgen.Client, lr loadgen.LevelResult) roundAccept {
	var ra roundAccept
	for i := range lr.Samples {
		ra.requests.Add(&lr.Samples[i])
	}
	if ra.requests.Requests == 0 && ctx.Err() == nil {
		ra.server = acceptLength(ctx, client)
	}
	return ra
}

// value is the round's own accept length: its requests', else the
// server's reading.
func (r roundAccept) value() float64 {
	if r.requests.Requests > 0 {
		return r.requests.AcceptLength()
	}
	return r.server
}

// levelAcceptLength is a level's accept length from its rounds: the
// requests of every round pooled when any request carried the figures;
// else the server's readings (their mean when each counts since its own
// flush, else the last); with its source and the number of requests it
// pools (0 for the server's).
func levelAcceptLength(rounds []roundAccept, flushed bool) (v float64, source string, requests int) {
	var pooled loadgen.SpecTotals
	servers := make([]float64, 0, len(rounds))
	for _, r := range rounds {
		pooled.Requests += r.requests.Requests
		pooled.Tokens += r.requests.Tokens
		pooled.VerifyCt += r.requests.VerifyCt
		servers = append(servers, r.server)
	}
	if pooled.Requests > 0 {
		return pooled.AcceptLength(), AcceptFromRequests, pooled.Requests
	}
	if v := levelAccept(servers, flushed); v > 0 {
		return v, AcceptFromServer, 0
	}
	return 0, "", 0
}
