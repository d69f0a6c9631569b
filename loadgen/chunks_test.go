package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/loadgen/loadgentest"
)

// Multi-token chunks (speculative decoding): ITL is per token, split as
// bench_serving splits it, and the chunk gaps are kept beside it.
func TestGenerateChunkGaps(t *testing.T) {
	var s Sample
	st := &stream{s: &s, start: at(0), onToken: func(int) {}}
	for _, c := range []struct {
		data string
		at   int
	}{
		{`{"text":" a","meta_info":{"completion_tokens":1}}`, 100},
		{`{"text":" a b c","meta_info":{"completion_tokens":3}}`, 120},
		{`{"text":" a b c d e","meta_info":{"completion_tokens":5}}`, 140},
		{`{"text":" a b c d e f","meta_info":{"completion_tokens":6}}`, 150},
	} {
		if err := st.generateChunk([]byte(c.data), at(c.at)); err != nil {
			t.Fatal(err)
		}
	}
	ten := 10 * time.Millisecond
	if !slices.Equal(s.ITL, []time.Duration{ten, ten, ten, ten, ten}) {
		t.Errorf("ITL: got %v, want five of 10ms", s.ITL)
	}
	if !slices.Equal(s.ChunkGaps, []time.Duration{2 * ten, 2 * ten, ten}) || !slices.Equal(s.ChunkTokens, []int{1, 2, 2, 1}) {
		t.Errorf("chunks: got gaps %v tokens %v, want [20ms 20ms 10ms] and [1 2 2 1]", s.ChunkGaps, s.ChunkTokens)
	}
}

// TestChatUncountedChunksSettle: a server that puts usage only on the
// final chunk (no continuous_usage_stats) streams 2 tokens per chunk; the
// final count is spread over the chunks so ITL stays per token, and the
// sample says it was estimated.
func TestChatUncountedChunksSettle(t *testing.T) {
	var s Sample
	st := &stream{s: &s, start: at(0), onToken: func(int) {}}
	for _, c := range []struct {
		data string
		at   int
	}{
		{`{"choices":[{"delta":{"content":" a"}}],"usage":null}`, 100},
		{`{"choices":[{"delta":{"content":" b c"}}],"usage":null}`, 120},
		{`{"choices":[{"delta":{"content":" d e"}}],"usage":null}`, 140},
		{`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":5}}`, 141},
	} {
		if err := st.chatChunk([]byte(c.data), at(c.at)); err != nil {
			t.Fatal(err)
		}
	}
	st.settle()
	ten := 10 * time.Millisecond
	if !slices.Equal(s.ITL, []time.Duration{ten, ten, ten, ten}) || !s.TokensEstimated || !slices.Equal(s.ChunkTokens, []int{1, 2, 2}) {
		t.Errorf("got ITL %v tokens %v estimated %v, want four of 10ms, [1 2 2], estimated", s.ITL, s.ChunkTokens, s.TokensEstimated)
	}
}

func TestRunMultiTokenChunks(t *testing.T) {
	for _, api := range APIs {
		t.Run(string(api), func(t *testing.T) {
			s := &loadgentest.Server{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, TokensPerChunk: 2}
			c := stub(t, s)
			res, err := c.Run(runCtx(t), Load{API: api, InputLen: 8, OutputLen: 12, Requests: 2}, Level{Concurrency: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := res.Metrics
			// 12 tokens in chunks of 2, 10 ms apart: two per-token ITL
			// samples of 5 ms for each gap. A chunk read late shortens the
			// next gap, so the bounds are loose but tell 5 from 10.
			if m.ITL.Median < 3.5 || m.ITL.Median > 7.5 {
				t.Errorf("median ITL %.2f ms, want 5 (per token)", m.ITL.Median)
			}
			if m.ChunkGap.Median < 8 || m.ChunkGap.Median > 10+ms(lateSlack) {
				t.Errorf("median chunk gap %.2f ms, want 10", m.ChunkGap.Median)
			}
			if m.TotalOutputTokens != 24 || res.TokenCounts != "server" {
				t.Errorf("got %d output tokens, counts from %q; want 24 from the server", m.TotalOutputTokens, res.TokenCounts)
			}
			if n := len(res.Samples[0].ITL); n != 10 {
				t.Errorf("got %d ITL samples for one request, want 10 (one per token after the first chunk)", n)
			}
		})
	}
}

// TestRunWarmConnections pins the first-wave TTFT fix: after the warm-up
// the pool holds one connection per stream, so no measured request opens
// a connection; and at most warmDialers are opened at once.
func TestRunWarmConnections(t *testing.T) {
	for _, streams := range []int{16, 3 * warmDialers} {
		t.Run(strconv.Itoa(streams), func(t *testing.T) {
			var opened, light, mostLight atomic.Int64
			var mu sync.Mutex
			var atMeasure int64 = -1
			inner := &loadgentest.Server{TTFT: 20 * time.Millisecond, ITL: time.Millisecond}
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" {
					n := light.Add(1)
					defer light.Add(-1)
					for m := mostLight.Load(); n > m && !mostLight.CompareAndSwap(m, n); m = mostLight.Load() {
					}
					time.Sleep(20 * time.Millisecond) // the dialers overlap
				}
				inner.ServeHTTP(w, r)
			}))
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					opened.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			c := NewClient(srv.URL, "", streams)
			defer c.Close()
			load := Load{API: Generate, InputLen: 4, OutputLen: 3, Requests: streams, Warmup: 1,
				BeforeMeasure: func(context.Context) error {
					mu.Lock()
					atMeasure = opened.Load()
					mu.Unlock()
					return nil
				}}
			if _, err := c.Run(runCtx(t), load, Level{Concurrency: streams}, nil); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if atMeasure < int64(streams) {
				t.Errorf("%d connections open before the measured requests, want %d", atMeasure, streams)
			}
			if got := opened.Load(); got != atMeasure {
				t.Errorf("the measured requests opened %d new connections, want 0", got-atMeasure)
			}
			if got := mostLight.Load(); got > warmDialers {
				t.Errorf("%d connections were being opened at once, want at most %d", got, warmDialers)
			}
		})
	}
}

func TestRunPrompts(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	inner := &loadgentest.Server{TTFT: time.Millisecond, ITL: time.Millisecond}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/generate" {
			var b struct {
				Text string `json:"text"`
				SP   struct {
					Max int `json:"max_new_tokens"`
				} `json:"sampling_params"`
			}
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &b)
			mu.Lock()
			bodies = append(bodies, b.Text+"|"+strconv.Itoa(b.SP.Max))
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(raw))
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	c := NewClient(srv.URL, "", 2)
	defer c.Close()
	prompts := []Prompt{{Text: `say "a"`, InputLen: 2, OutputLen: 3}, {Text: "b\nb", InputLen: 2, OutputLen: 4}, {Text: "c", InputLen: 1, OutputLen: 5}}
	res, err := c.Run(runCtx(t), Load{API: Generate, Prompts: prompts, Offset: 1, Requests: 3, Warmup: 1}, Level{Concurrency: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Warm-up takes prompt 0, the measured requests start at the offset.
	want := []string{`say "a"|3`, "b\nb|4", "c|5", `say "a"|3`}
	if !slices.Equal(bodies, want) {
		t.Errorf("bodies: got %q, want %q", bodies, want)
	}
	if res.Metrics.TotalOutputTokens != 12 {
		t.Errorf("got %d output tokens, want 4+5+3", res.Metrics.TotalOutputTokens)
	}
}

func TestGoodput(t *testing.T) {
	samples := []Sample{
		{OK: true, OutputTokens: 11, TTFT: msd(100), Latency: msd(200)}, // TPOT 10: good
		{OK: true, OutputTokens: 11, TTFT: msd(300), Latency: msd(400)}, // TTFT over
		{OK: true, OutputTokens: 11, TTFT: msd(100), Latency: msd(400)}, // TPOT 30: over
		{OK: true, OutputTokens: 1, TTFT: msd(150), Latency: msd(150)},  // TPOT 0: good
		{OK: false, Err: "x"},
	}
	m := Compute(samples, 2*time.Second, false)
	if _, ok := m.Get("request_goodput"); ok {
		t.Errorf("request_goodput present without an SLO")
	}
	m.AddGoodput(samples, SLO{TTFTms: 200, TPOTms: 20})
	if got, ok := m.Get("request_goodput"); !ok || math.Abs(got-1) > 1e-9 {
		t.Errorf("request_goodput: got %v %v, want 1 (2 good in 2 s)", got, ok)
	}
	var back Metrics
	raw, _ := json.Marshal(m)
	if err := json.Unmarshal(raw, &back); err != nil || !back.HasGoodput || back.RequestGoodput != m.RequestGoodput {
		t.Errorf("round trip lost goodput: %s", raw)
	}
	if !strings.Contains(string(raw), `"median_chunk_gap_ms":`) {
		t.Errorf("metrics lack the chunk gaps: %s", raw)
	}
}

func TestPool(t *testing.T) {
	t0 := time.Unix(100, 0)
	round := func(start time.Time, ttft float64) LevelResult {
		ss := []Sample{{OK: true, OutputTokens: 2, TTFT: msd(ttft), Latency: msd(ttft + 10), ITL: []time.Duration{msd(10)}}}
		return LevelResult{Level: Level{Concurrency: 1}, Started: start, Ended: start.Add(time.Second), Samples: ss}
	}
	p := Pool([]LevelResult{round(t0, 100), round(t0.Add(5*time.Second), 300)}, &SLO{TTFTms: 200})
	m := p.Metrics
	if m.Completed != 2 || m.Duration != 2 || m.TTFT.Mean != 200 || m.RequestGoodput != 0.5 || !p.Ended.Equal(t0.Add(6*time.Second)) {
		t.Errorf("pooled: %+v ended %v", m, p.Ended)
	}
}
