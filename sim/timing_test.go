package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Configured timing of the timing test and benchmarks.
const (
	wantTTFT = 50 * time.Millisecond
	wantITL  = 10 * time.Millisecond
)

// streamStats is what a client measures of one streaming /generate, the way
// sglang.bench_serving does: TTFT is the first chunk's arrival after the
// request was sent; ITL is the gap between chunks.
type streamStats struct {
	ttft   time.Duration
	wired  time.Duration // first chunk's arrival after the request was written (httptrace)
	itls   []time.Duration
	tokens int
	span   time.Duration // first chunk to last
}

func timingClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 2 * time.Minute,
		Transport: &http.Transport{
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			MaxConnsPerHost:     conns,
			DisableCompression:  true,
		},
	}
}

func measureStream(ctx context.Context, c *http.Client, url string, n int) (streamStats, error) {
	var st streamStats
	body, _ := json.Marshal(map[string]any{
		"input_ids":       make([]int, 128),
		"sampling_params": map[string]any{"max_new_tokens": n, "ignore_eos": true, "temperature": 0},
		"stream":          true,
	})
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return st, err
	}
	req.Header.Set("Content-Type", "application/json")
	var wrote time.Time
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote = time.Now() },
	}))
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	var first, prev time.Time
	for {
		line, err := r.ReadSlice('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			return st, err
		}
		if !bytes.HasPrefix(line, []byte("data: ")) || bytes.HasPrefix(line, []byte("data: [DONE]")) {
			continue
		}
		now := time.Now()
		if st.tokens == 0 {
			first = now
			st.ttft = now.Sub(start)
			st.wired = now.Sub(wrote)
		} else {
			st.itls = append(st.itls, now.Sub(prev))
		}
		prev = now
		st.tokens++
	}
	st.span = prev.Sub(first)
	if st.tokens != n {
		return st, fmt.Errorf("got %d chunks, want %d", st.tokens, n)
	}
	return st, nil
}

// runRound sends conc streams at once and returns their stats.
func runRound(ctx context.Context, c *http.Client, url string, conc, n int) ([]streamStats, error) {
	out := make([]streamStats, conc)
	errs := make([]error, conc)
	var wg sync.WaitGroup
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = measureStream(ctx, c, url, n)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

type summary struct {
	ttft, wired, itl, itlP99 time.Duration
	tokPerSec                float64 // median over streams of (tokens-1)/span
}

func summarize(stats []streamStats) summary {
	var ttfts, wireds, itls []time.Duration
	var rates []time.Duration // seconds per token, to reuse median
	for _, s := range stats {
		ttfts = append(ttfts, s.ttft)
		wireds = append(wireds, s.wired)
		itls = append(itls, s.itls...)
		rates = append(rates, s.span/time.Duration(s.tokens-1))
	}
	return summary{
		ttft: median(ttfts), wired: median(wireds), itl: median(itls), itlP99: percentile(itls, 0.99),
		tokPerSec: float64(time.Second) / float64(median(rates)),
	}
}

func relErr(got, want time.Duration) float64 {
	return 100 * (float64(got) - float64(want)) / float64(want)
}

// The sim's reason to exist: a client measures the configured TTFT and ITL.
// The test's bounds are loose (ITL ±5 %, TTFT ±10 %) so that it never flakes
// on a loaded machine; BenchmarkStreamTiming reports the real accuracy.
func TestTimingConcurrency1(t *testing.T) {
	p := startSim(t, []string{
		"SGLANG_SIM_TTFT_MS=" + strconv.Itoa(int(wantTTFT/time.Millisecond)),
		"SGLANG_SIM_ITL_MS=" + strconv.Itoa(int(wantITL/time.Millisecond)),
	})
	p.waitReady()
	c := timingClient(4)
	url := p.url("/generate")
	if _, err := measureStream(t.Context(), c, url, 4); err != nil { // open the keep-alive connection
		t.Fatal(err)
	}
	const requests, tokens = 5, 40
	var stats []streamStats
	for range requests {
		st, err := measureStream(t.Context(), c, url, tokens)
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
	}
	s := summarize(stats)
	t.Logf("concurrency 1: median TTFT %v (%+.2f%%), median ITL %v (%+.2f%%), p99 ITL %v, %.2f tok/s per stream",
		s.ttft, relErr(s.ttft, wantTTFT), s.itl, relErr(s.itl, wantITL), s.itlP99, s.tokPerSec)
	if e := relErr(s.itl, wantITL); e < -5 || e > 5 {
		t.Errorf("median ITL %v is %+.2f%% off %v; want within ±5%%", s.itl, e, wantITL)
	}
	if e := relErr(s.ttft, wantTTFT); e < -10 || e > 10 {
		t.Errorf("median TTFT %v is %+.2f%% off %v; want within ±10%%", s.ttft, e, wantTTFT)
	}
}

// BenchmarkStreamTiming measures the sim's timing accuracy at several
// concurrencies, one round of concurrent 100-token streams per iteration:
//
//	go test -run '^$' -bench StreamTiming -benchtime 3x ./sim/
func BenchmarkStreamTiming(b *testing.B) {
	for _, conc := range []int{1, 32, 128, 256} {
		b.Run(fmt.Sprintf("c%d", conc), func(b *testing.B) {
			p := startSim(b, []string{
				"SGLANG_SIM_TTFT_MS=" + strconv.Itoa(int(wantTTFT/time.Millisecond)),
				"SGLANG_SIM_ITL_MS=" + strconv.Itoa(int(wantITL/time.Millisecond)),
			})
			p.waitReady()
			c := timingClient(conc)
			url := p.url("/generate")
			if _, err := runRound(b.Context(), c, url, conc, 4); err != nil {
				b.Fatal(err)
			}
			const tokens = 100
			var all []streamStats
			b.ResetTimer()
			for range b.N {
				stats, err := runRound(b.Context(), c, url, conc, tokens)
				if err != nil {
					b.Fatal(err)
				}
				all = append(all, stats...)
			}
			b.StopTimer()
			s := summarize(all)
			b.ReportMetric(float64(s.ttft)/1e6, "ttft-ms")
			b.ReportMetric(relErr(s.ttft, wantTTFT), "ttft-err-%")
			// TTFT counted from when the request was on the wire: the sim's
			// own error, without the client's send-side scheduling.
			b.ReportMetric(relErr(s.wired, wantTTFT), "wired-ttft-err-%")
			b.ReportMetric(float64(s.itl)/1e6, "itl-ms")
			b.ReportMetric(relErr(s.itl, wantITL), "itl-err-%")
			b.ReportMetric(float64(s.itlP99)/1e6, "itl-p99-ms")
			b.ReportMetric(s.tokPerSec, "tok/s/stream")
		})
	}
}

// BenchmarkLogFlood measures how fast the sim writes its log flood into a
// pipe read as fast as possible (1 GiB per iteration):
//
//	go test -run '^$' -bench LogFlood -benchtime 1x ./sim/
func BenchmarkLogFlood(b *testing.B) {
	const n = 1 << 30
	b.SetBytes(n)
	for range b.N {
		cmd := exec.Command("python3", "-m", "sglang.launch_server", "--model-path", testModel)
		cmd.Env = simEnv(randomMarker(b), fmt.Sprintf("SGLANG_SIM_LOG_FLOOD_BYTES=%d", n), "SGLANG_SIM_EXIT_AFTER_FLOOD=1")
		cmd.Dir = b.TempDir()
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		got, err := io.CopyBuffer(io.Discard, out, make([]byte, 1<<20))
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		if got != n {
			b.Fatalf("read %d bytes, want %d", got, n)
		}
	}
}
