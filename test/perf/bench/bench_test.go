package benchperf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/test/perf/perfenv"
)

// The benchmarks of sglaunch bench: how exactly its load generator
// measures a server with known timing, and what the client itself costs.
//
//	go test ./test/perf -run '^$' -bench 'BenchSim|BenchClient' -benchtime 1x
//
// Each iteration is one full `sglaunch bench` run; its metrics are read
// from the record it writes.

// Configured timing of the accuracy benchmark (the values).
const (
	accTTFTms = 200.0
	accITLms  = 10.0
)

type levelMetrics struct {
	Concurrency int                `json:"concurrency"`
	Metrics     map[string]float64 `json:"metrics"`
}

// lastRecord reads the levels of the record a run left under dir.
func lastRecord(b *testing.B, dir string) []levelMetrics {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		b.Fatalf("no record in %s", dir)
	}
	data, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		b.Fatal(err)
	}
	var rec struct {
		Status    string `json:"status"`
		Error     string `json:"error"`
		Workloads []struct {
			Levels []levelMetrics `json:"levels"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		b.Fatal(err)
	}
	if rec.Status != "ok" {
		b.Fatalf("run failed: %s", rec.Error)
	}
	var out []levelMetrics
	for _, w := range rec.Workloads {
		out = append(out, w.Levels...)
	}
	return out
}

func pctOff(got, want float64) float64 { return (got - want) / want * 100 }

// BenchmarkBenchSimAccuracy runs `sglaunch bench` against the simulator
// set to TTFT 200 ms and ITL 10 ms, at concurrency 1 and 32, 1024 tokens
// in and 512 out, and reports the medians and their error in percent.
// The single-stream rate is decode_tok_s at concurrency 1, and 1000 /
// median TPOT per stream at 32 (configured: 100 tok/s).
func BenchmarkBenchSimAccuracy(b *testing.B) {
	sim := map[string]string{
		"SGLANG_SIM_TTFT_MS": fmt.Sprint(accTTFTms), "SGLANG_SIM_ITL_MS": fmt.Sprint(accITLms),
		"SGLANG_SIM_LOAD_SECONDS": "0.5", "SGLANG_SIM_WARMUP_SECONDS": "0.1",
	}
	e := perfenv.New(b, sim, `bench:
  workloads:
    - name: c1
      concurrency: 1
      requests: 5
    - name: c32
      concurrency: 32
      rounds: 2
`)
	records := filepath.Join(e.Dir, "state", "sglaunch", "records")
	for b.Loop() {
		cmd := e.Command(b, "bench", "--profile", "perf")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("bench: %v\n%s", err, out)
		}
	}
	levels := lastRecord(b, records)
	for _, l := range levels {
		m := l.Metrics
		rate := m["decode_tok_s"]
		if l.Concurrency != 1 {
			rate = 1000 / m["median_tpot_ms"]
		}
		p := fmt.Sprintf("c%d-", l.Concurrency)
		b.ReportMetric(m["median_ttft_ms"], p+"ttft-ms")
		b.ReportMetric(pctOff(m["median_ttft_ms"], accTTFTms), p+"ttft-err-%")
		b.ReportMetric(m["median_itl_ms"], p+"itl-ms")
		b.ReportMetric(pctOff(m["median_itl_ms"], accITLms), p+"itl-err-%")
		b.ReportMetric(rate, p+"stream-tok/s")
		b.ReportMetric(pctOff(rate, 1000/accITLms), p+"stream-err-%")
	}
	b.ReportMetric(0, "ns/op")
}

// Client overhead: 256 streams against the Go stub server (a separate
// process), ITL 10 ms: 25,600 tokens/s offered.
const (
	overheadStreams = 256
	overheadITLms   = 10.0
)

// stubServer builds and starts the stub server; it returns its URL.
func stubServer(b *testing.B, ttft, itl time.Duration) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "stubserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../stubserver").CombinedOutput(); err != nil {
		b.Fatalf("build stubserver: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-ttft", ttft.String(), "-itl", itl.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("stubserver: %v", err)
	}
	return strings.TrimSpace(line)
}

// BenchmarkBenchClientOverhead runs `sglaunch bench --url` with 256
// concurrent streams of 512 tokens against the stub server and reports
// the streamed tokens/s, the median ITL and its error, and the CPU time
// the sglaunch process used (user + system), in seconds and as a share of
// one core over the run.
func BenchmarkBenchClientOverhead(b *testing.B) {
	url := stubServer(b, 50*time.Millisecond, time.Duration(overheadITLms*float64(time.Millisecond)))
	e := perfenv.New(b, nil, "")
	file := filepath.Join(e.Dir, "streams.yaml")
	workload := fmt.Sprintf("name: streams\ninput_len: 1024\noutput_len: 512\nconcurrency: %d\nrounds: 2\n", overheadStreams)
	if err := os.WriteFile(file, []byte(workload), 0o644); err != nil {
		b.Fatal(err)
	}
	records := filepath.Join(e.Dir, "state", "sglaunch", "records")
	var cpu, wall time.Duration
	for b.Loop() {
		cmd := e.Command(b, "bench", "--url", url, "--workload", file)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("bench: %v\n%s", err, out)
		}
		wall += time.Since(start)
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	m := lastRecord(b, records)[0].Metrics
	b.ReportMetric(m["output_throughput"], "tok/s")
	b.ReportMetric(m["median_itl_ms"], "itl-median-ms")
	b.ReportMetric(pctOff(m["median_itl_ms"], overheadITLms), "itl-err-%")
	b.ReportMetric(m["p99_itl_ms"], "itl-p99-ms")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "client-cpu-s")
	b.ReportMetric(cpu.Seconds()/wall.Seconds()*100, "client-cpu-%core")
	b.ReportMetric(cpu.Seconds()/float64(b.N)/m["total_output_tokens"]*1e6, "cpu-us/token")
	b.ReportMetric(0, "ns/op")
}
