package benchperf

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/test/perf/perfenv"
)

// The load generator at scale, each figure a ratio against its reference
// measured in the same run:
//
//	go test ./test/perf/bench -run '^$' -bench ClientScale -benchtime 3x -timeout 30m
//
// The reference client is refclient/refclient.py: bench_serving's work
// per event (json.loads, a stamp, a TTFT or ITL sample) on one keep-alive
// connection per stream, standard library only. CPU per token is also
// measured against bench_serving's own client (refclient/bench_serving.py:
// SGLang's request function under aiohttp, figures prefixed bs-) where a
// python3 has aiohttp, once per iteration, first or last by turns. With
// SGLAUNCH_PERF_BASELINE=/path/to/an/older/sglaunch that binary is
// measured beside this one, its figures prefixed base-. Each iteration
// runs every client once, in an order that rotates, and the figures are
// the medians over the iterations.

// scaleCase is one stub server's timing and one load against it.
type scaleCase struct {
	ttft, itl         time.Duration
	in, out, rounds   int
	api               string
	streams, baseline int // concurrency measured, and the small one subtracted
}

var (
	// cpuCase: 25,600 tokens/s offered, as BenchClientOverhead.
	cpuCase = scaleCase{ttft: 50 * time.Millisecond, itl: 10 * time.Millisecond, in: 128, out: 128, rounds: 2, streams: 256}
	// memCase: 2048 open streams, slow enough that 2 cores keep up
	// (20,480 events/s); the true TTFT is 1 s.
	memCase = scaleCase{ttft: time.Second, itl: 100 * time.Millisecond, in: 64, out: 16, rounds: 2, streams: 2048, baseline: 64}
	// wideCase: 8192 open streams, 8 tokens each, 250 ms apart.
	wideCase = scaleCase{ttft: time.Second, itl: 250 * time.Millisecond, in: 32, out: 8, rounds: 1, streams: 8192}
)

// clientRun is what one client run cost and what it measured.
type clientRun struct {
	cpu      time.Duration
	maxRSS   int64 // bytes
	tokens   float64
	ttftMs   float64
	complete float64
}

// sglaunchRun runs `bin bench --url` for one level of c streams.
func sglaunchRun(b *testing.B, bin, url string, k scaleCase, c int) clientRun {
	b.Helper()
	e := perfenv.New(b, nil, "")
	file, records := filepath.Join(e.Dir, "w.yaml"), filepath.Join(e.Dir, "records")
	api := ""
	if k.api != "" {
		api = "api: " + k.api + "\n"
	}
	w := fmt.Sprintf("name: scale\n%sinput_len: %d\noutput_len: %d\nconcurrency: %d\nrounds: %d\nflush_cache: false\n", api, k.in, k.out, c, k.rounds)
	if err := os.WriteFile(file, []byte(w), 0o644); err != nil {
		b.Fatal(err)
	}
	like := e.Command(b, "bench", "--url", url, "--workload", file, "--out", records)
	cmd := exec.Command(bin, like.Args[1:]...)
	cmd.Env, cmd.Dir, cmd.SysProcAttr = like.Env, like.Dir, like.SysProcAttr
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s bench: %v\n%s", bin, err, out)
	}
	m := lastRecord(b, records)[0].Metrics
	r := usage(cmd)
	r.tokens, r.ttftMs, r.complete = m["total_output_tokens"], m["median_ttft_ms"], m["completed"]
	return r
}

// refRun runs the reference client for c streams.
func refRun(b *testing.B, url string, k scaleCase, c int) clientRun {
	b.Helper()
	var extra []string
	if k.api != "" {
		extra = []string{"--api", k.api}
	}
	r, _ := pythonClientRun(b, testkit.RealPython(b), "refclient.py", url, k, c, extra...)
	return r
}

// benchServingPython is the python3 that has aiohttp for bench_serving's
// client (refclient/bench_serving.py), or "" with why not.
func benchServingPython() (string, string) {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import aiohttp").Run() == nil {
			return py, ""
		}
	}
	return "", "no python3 with aiohttp (Debian: apt-get install python3-aiohttp): the bs- figures are left out"
}

// benchServingRun runs SGLang's bench_serving client (its own request
// function, refclient/bench_serving.py) for c streams; jsonCPU is the CPU
// its JSON parsing took.
func benchServingRun(b *testing.B, py, url string, k scaleCase, c int) (r clientRun, jsonCPU time.Duration) {
	b.Helper()
	return pythonClientRun(b, py, "bench_serving.py", url, k, c, "--time-json")
}

// pythonClientRun runs refclient/script with py for c streams of k; both
// Python clients take the same options and print the same JSON object
// (jsonCPU is bench_serving.py's, with --time-json).
func pythonClientRun(b *testing.B, py, script, url string, k scaleCase, c int, extra ...string) (r clientRun, jsonCPU time.Duration) {
	b.Helper()
	args := append([]string{"../refclient/" + script, "--url", url, "--concurrency", strconv.Itoa(c), "--rounds", strconv.Itoa(k.rounds),
		"--input-len", strconv.Itoa(k.in), "--output-len", strconv.Itoa(k.out)}, extra...)
	cmd := exec.Command(py, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s: %v\n%s%s", script, err, out, stderr.String())
	}
	var got struct {
		Completed    float64 `json:"completed"`
		OutputTokens float64 `json:"output_tokens"`
		MedianTTFTms float64 `json:"median_ttft_ms"`
		JSONCPU      float64 `json:"json_cpu_s"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		b.Fatalf("%s: %v: %s", script, err, out)
	}
	r = usage(cmd)
	r.tokens, r.ttftMs, r.complete = got.OutputTokens, got.MedianTTFTms, got.Completed
	return r, time.Duration(got.JSONCPU * float64(time.Second))
}

func usage(cmd *exec.Cmd) clientRun {
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return clientRun{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), maxRSS: ru.Maxrss << 10}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// client is one measured client: sglaunch, a baseline sglaunch, or the
// reference.
type client struct {
	name string
	run  func(b *testing.B, url string, k scaleCase, c int) clientRun
	figs map[string][]float64
}

func (c *client) add(name string, v float64) { c.figs[name] = append(c.figs[name], v) }

func scaleClients(b *testing.B) []*client {
	bin := perfenv.Binary(b)
	cs := []*client{
		{name: "", run: func(b *testing.B, url string, k scaleCase, c int) clientRun { return sglaunchRun(b, bin, url, k, c) }},
		{name: "ref-", run: refRun},
	}
	if base := os.Getenv("SGLAUNCH_PERF_BASELINE"); base != "" {
		cs = append(cs, &client{name: "base-", run: func(b *testing.B, url string, k scaleCase, c int) clientRun { return sglaunchRun(b, base, url, k, c) }})
	}
	for _, c := range cs {
		c.figs = map[string][]float64{}
	}
	return cs
}

// BenchmarkClientScale measures, per client: CPU per output token at 256
// streams (cpu-us/token), memory per open stream at 2048 (the peak RSS
// at 2048 streams less the peak at 64, over the 1984 streams between:
// KiB/stream) and the median TTFT's error at 2048 against the median TTFT
// the stub served those streams (from each request's arrival on the
// machine to its first token's write; nominally 1 s, later by the stub's
// own lateness under the wave, which c2048-stub-late-% reports), in
// percent; and sglaunch's ratios to the reference.
func BenchmarkClientScale(b *testing.B) {
	cpuURL := stubServer(b, cpuCase.ttft, cpuCase.itl)
	memURL := stubServer(b, memCase.ttft, memCase.itl)
	cs := scaleClients(b)
	py, why := benchServingPython()
	if why != "" {
		b.Log(why)
	}
	bs := &client{name: "bs-", figs: map[string][]float64{}}
	turn := 0
	for b.Loop() {
		if py != "" && turn%2 == 0 {
			benchServingCPU(b, bs, py, cpuURL)
		}
		for i := range cs {
			c := cs[(i+turn)%len(cs)]
			r := c.run(b, cpuURL, cpuCase, cpuCase.streams)
			c.add("cpu-us/token", r.cpu.Seconds()/r.tokens*1e6)
			servedMedian(b, memURL) // what the stub served before this run
			big := c.run(b, memURL, memCase, memCase.streams)
			truth := servedMedian(b, memURL)
			small := c.run(b, memURL, memCase, memCase.baseline)
			c.add("KiB/stream", float64(big.maxRSS-small.maxRSS)/float64(memCase.streams-memCase.baseline)/1024)
			c.add("peak-MiB-c2048", float64(big.maxRSS)/(1<<20))
			c.add("c2048-ttft-err-%", pctOff(big.ttftMs, truth))
			c.add("c2048-ttft-vs-nominal-%", pctOff(big.ttftMs, ms(memCase.ttft)))
			c.add("c2048-stub-late-%", pctOff(truth, ms(memCase.ttft)))
			if big.complete != float64(memCase.streams*memCase.rounds) {
				b.Errorf("%sclient completed %v of %d requests at c=%d", c.name, big.complete, memCase.streams*memCase.rounds, memCase.streams)
			}
		}
		if py != "" && turn%2 == 1 {
			benchServingCPU(b, bs, py, cpuURL)
		}
		turn++
	}
	for _, c := range append(cs, bs) {
		for name, v := range c.figs {
			b.ReportMetric(median(v), c.name+name)
		}
	}
	self, ref := cs[0].figs, cs[1].figs
	b.ReportMetric(median(self["cpu-us/token"])/median(ref["cpu-us/token"]), "cpu-per-token-vs-ref")
	if py != "" {
		b.ReportMetric(median(self["cpu-us/token"])/median(bs.figs["cpu-us/token"]), "cpu-per-token-vs-bench_serving")
		// At its most demanding: bench_serving with its JSON parsing free
		// (it uses orjson, which Debian does not have; json stands in).
		b.ReportMetric(median(self["cpu-us/token"])/median(bs.figs["cpu-us/token-sans-json"]), "cpu-per-token-vs-bench_serving-sans-json")
	}
	b.ReportMetric(median(self["KiB/stream"])/median(ref["KiB/stream"]), "mem-per-stream-vs-ref")
	b.ReportMetric(0, "ns/op")
}

// benchServingCPU runs bench_serving's client on the CPU case, first or
// last in the iteration by turns.
func benchServingCPU(b *testing.B, bs *client, py, url string) {
	r, jsonCPU := benchServingRun(b, py, url, cpuCase, cpuCase.streams)
	bs.add("cpu-us/token", r.cpu.Seconds()/r.tokens*1e6)
	bs.add("cpu-us/token-sans-json", (r.cpu-jsonCPU).Seconds()/r.tokens*1e6)
	bs.add("json-us/token", jsonCPU.Seconds()/r.tokens*1e6)
	bs.add("c256-ttft-ms", r.ttftMs)
	if r.complete != float64(cpuCase.streams*cpuCase.rounds) {
		b.Errorf("bench_serving completed %v of %d requests", r.complete, cpuCase.streams*cpuCase.rounds)
	}
}

// BenchmarkClientWide runs sglaunch (and the baseline, in turn) at 8192
// open streams and reports the median TTFT's error against the median the
// stub served (nominally 1 s). The reference client is left out, to keep
// the run short.
func BenchmarkClientWide(b *testing.B) {
	url := stubServer(b, wideCase.ttft, wideCase.itl)
	cs := scaleClients(b)
	cs = slices.DeleteFunc(cs, func(c *client) bool { return c.name == "ref-" })
	turn := 0
	for b.Loop() {
		for i := range cs {
			c := cs[(i+turn)%len(cs)]
			servedMedian(b, url)
			r := c.run(b, url, wideCase, wideCase.streams)
			truth := servedMedian(b, url)
			c.add("c8192-ttft-err-%", pctOff(r.ttftMs, truth))
			c.add("c8192-ttft-vs-nominal-%", pctOff(r.ttftMs, ms(wideCase.ttft)))
			c.add("c8192-stub-late-%", pctOff(truth, ms(wideCase.ttft)))
			c.add("peak-MiB-c8192", float64(r.maxRSS)/(1<<20))
		}
		turn++
	}
	for _, c := range cs {
		for name, v := range c.figs {
			b.ReportMetric(median(v), c.name+name)
		}
	}
	b.ReportMetric(0, "ns/op")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// servedMedian is the median TTFT the stub at url served the streams
// since the last call, in milliseconds (GET /stub/served).
func servedMedian(b *testing.B, url string) float64 {
	b.Helper()
	resp, err := http.Get(url + "/stub/served")
	if err != nil {
		b.Fatalf("stub served: %v", err)
	}
	defer resp.Body.Close()
	var got struct {
		Count     float64 `json:"count"`
		MedianMs  float64 `json:"median_ms"`
		Unstamped float64 `json:"unstamped"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		b.Fatalf("stub served: %v", err)
	}
	if got.Unstamped > 0 {
		b.Logf("the stub served %v streams, %v requests' arrival unstamped (their TTFT runs from the handler's start)", got.Count, got.Unstamped)
	}
	return got.MedianMs
}
