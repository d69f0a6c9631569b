package loadgen

import (
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// TestZeroTokenAnswerIsACompletion pins what broke: a server that ends a
// request with [DONE] and a count of 0 tokens (a chat request answered
// before its first token) was counted as a failed request ("the stream
// ended without any text"); bench_serving crashes on it. It is a
// completion of 0 tokens, with no TTFT or ITL sample.
func TestZeroTokenAnswerIsACompletion(t *testing.T) {
	for _, api := range APIs {
		t.Run(string(api), func(t *testing.T) {
			s := &loadgentest.Server{TTFT: 5 * time.Millisecond, ZeroTokens: true}
			c := stub(t, s)
			load := Load{API: api, InputLen: 16, OutputLen: 10, Requests: 6, Warmup: 1, Seed: 1}
			res, err := c.Run(runCtx(t), load, Level{Concurrency: 3}, nil)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			m := res.Metrics
			if m.Completed != 6 || m.Failed != 0 || m.ZeroTokenCompleted != 6 {
				t.Errorf("got %d completed (%d of 0 tokens), %d failed; want 6 (6), 0: %v", m.Completed, m.ZeroTokenCompleted, m.Failed, res.Errors)
			}
			if m.TotalOutputTokens != 0 || m.TTFT != (Dist{}) || m.ITL != (Dist{}) || m.TPOT != (Dist{}) {
				t.Errorf("got %d output tokens, TTFT %+v, ITL %+v, TPOT %+v; want none", m.TotalOutputTokens, m.TTFT, m.ITL, m.TPOT)
			}
			if m.E2E.Median <= 0 {
				t.Errorf("got median e2e latency %v, want the time to [DONE]", m.E2E.Median)
			}
			if v, ok := m.Get("zero_token_completed"); !ok || v != 6 {
				t.Errorf("zero_token_completed: got %v, %v; want 6", v, ok)
			}
		})
	}
}

// TestZeroTokenMetricOnlyWhenSeen: the count is left out of records and
// tables while no request had 0 tokens, so they read as before.
func TestZeroTokenMetricOnlyWhenSeen(t *testing.T) {
	for _, n := range (Metrics{Completed: 3}).Named() {
		if n.Name == "zero_token_completed" {
			t.Errorf("got %s = %v in the metrics of a level without 0-token answers", n.Name, n.Value)
		}
	}
}
