package loadgen

import (
	"errors"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// allocBound is the most the client may allocate while it follows one
// hostile level of two requests: a bounded event (maxEvent) with its
// buffers, far below what the server claims or sends.
const allocBound = 64 << 20

// TestHostileServerExhaustsMemory pins issue 12, defect 4: one event
// claiming completion_tokens 20000000 took the client to 890 MB and was
// recorded ok at 34 M tok/s; 18 digits ended it with "fatal error: out
// of memory"; a 256 MiB data: line took 1.2 GB. Every mode is a failed
// request now, and the client allocates less than allocBound for it.
func TestHostileServerExhaustsMemory(t *testing.T) {
	want := map[string]string{
		"huge-count":     "the server claims 20000000 completion tokens, 8 were asked for",
		"huge-digits":    "the server claims 999999999999999999 completion tokens, 8 were asked for",
		"negative-count": "negative token count",
		"huge-line":      "event too large",
		"endless":        "the server claims 9 completion tokens, 8 were asked for",
	}
	for _, mode := range loadgentest.HostileModes {
		for _, api := range APIs {
			t.Run(mode+"/"+string(api), func(t *testing.T) {
				srv := httptest.NewServer(&loadgentest.Server{Hostile: mode})
				defer srv.Close()
				c := NewClient(srv.URL, "", 1)
				defer c.Close()
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				res, err := c.Run(runCtx(t), Load{API: api, InputLen: 4, OutputLen: 8, Requests: 2}, Level{Concurrency: 1}, nil)
				runtime.ReadMemStats(&after)
				if !errors.Is(err, ErrNoneCompleted) || res.Metrics.Failed != 2 || res.Metrics.TotalOutputTokens != 0 {
					t.Fatalf("got %v with %d failed, %d tokens; want every request failed", err, res.Metrics.Failed, res.Metrics.TotalOutputTokens)
				}
				msg := want[mode]
				if !strings.Contains(err.Error(), msg) {
					t.Errorf("error %q lacks %q", err, msg)
				}
				if grew := after.TotalAlloc - before.TotalAlloc; grew > allocBound {
					t.Errorf("the client allocated %d MiB, want under %d MiB", grew>>20, allocBound>>20)
				}
			})
		}
	}
}

// TestShortStreamCountedOK pins issue 12, defect 5 (streams): a
// close-delimited stream cut after 3 of 8 tokens (no [DONE], ignore_eos
// sent) counted as a completed request, as did a stream that said
// [DONE] early. Both are failed requests.
func TestShortStreamCountedOK(t *testing.T) {
	tests := []struct {
		name   string
		server *loadgentest.Server
		want   string
	}{
		{"cut", &loadgentest.Server{CutAfter: 3}, "the stream ended without [DONE] after 3 of 8 tokens"},
		{"short", &loadgentest.Server{ShortAfter: 3}, "short stream: 3 of 8 tokens"},
	}
	for _, tt := range tests {
		for _, api := range APIs {
			t.Run(tt.name+"/"+string(api), func(t *testing.T) {
				c := stub(t, tt.server)
				res, err := c.Run(runCtx(t), Load{API: api, InputLen: 4, OutputLen: 8, Requests: 3}, Level{Concurrency: 1}, nil)
				if !errors.Is(err, ErrNoneCompleted) || res.Metrics.Completed != 0 || res.Metrics.Failed != 3 {
					t.Fatalf("got %v, %d completed, %d failed; want all 3 failed", err, res.Metrics.Completed, res.Metrics.Failed)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q lacks %q", err, tt.want)
				}
			})
		}
	}
}

// TestSomeRequestsRejected: a server that sheds part of the load (HTTP
// 429) fails those requests only; the level reports them (issue 12,
// defect 5: bench must not call such a level ok).
func TestSomeRequestsRejected(t *testing.T) {
	c := stub(t, &loadgentest.Server{Status: 429, StatusEvery: 2})
	res, err := c.Run(runCtx(t), Load{API: Generate, InputLen: 4, OutputLen: 4, Requests: 10}, Level{Concurrency: 1}, nil)
	if err != nil || res.Metrics.Completed != 5 || res.Metrics.Failed != 5 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "HTTP 429") {
		t.Errorf("got %v, %d completed, %d failed, errors %v; want 5 and 5 with HTTP 429", err, res.Metrics.Completed, res.Metrics.Failed, res.Errors)
	}
}
