package benchperf

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/sim"
	"github.com/sglaunch/sglaunch/test/perf/perfenv"
)

// Issue 13's measurement: the simulator under speculative decoding with 2
// tokens per chunk (SGLANG_SIM_ACCEPT_LENGTH=2) and ITL 10 ms per token,
// TTFT 100 ms.
const (
	specTTFTms  = 100.0
	specITLms   = 10.0
	specAccept  = 2.0
	specWorkers = `workloads:
  - {name: gen-c1, input_len: 1024, output_len: 256, concurrency: 1, rounds: 3}
  - {name: gen-c32, input_len: 1024, output_len: 256, concurrency: 32, rounds: 2}
  - {name: chat-c1, api: chat, input_len: 256, output_len: 256, concurrency: 1, rounds: 3}
  - {name: chat-c32, api: chat, input_len: 256, output_len: 256, concurrency: 32, rounds: 2}
  - {name: wave-c128, input_len: 1024, output_len: 64, concurrency: 128, rounds: 1}
`
)

// startSpecSim starts the simulator by hand (so that any sglaunch binary
// can measure it with --url) and returns its URL once /health is 200.
func startSpecSim(b *testing.B) string {
	b.Helper()
	dir, err := sim.Ensure(b.Context(), b.TempDir(), catalog.SGLangArgsJSON())
	if err != nil {
		b.Fatal(err)
	}
	port := testkit.FreePort(b)
	cmd := exec.Command(testkit.RealPython(b), "-m", "sglang.launch_server", "--model-path", "sim/model", "--tp", "2",
		"--port", strconv.Itoa(port), "--speculative-algorithm", "EAGLE")
	cmd.Dir = b.TempDir()
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "SGLANG_SIM_LOAD_SECONDS=0.5", "SGLANG_SIM_WARMUP_SECONDS=0.1",
		fmt.Sprintf("SGLANG_SIM_TTFT_MS=%g", specTTFTms), fmt.Sprintf("SGLANG_SIM_ITL_MS=%g", specITLms),
		fmt.Sprintf("SGLANG_SIM_ACCEPT_LENGTH=%g", specAccept))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("the simulator did not become healthy")
	return ""
}

type specLevel struct {
	Metrics      map[string]float64 `json:"metrics"`
	AcceptLength float64            `json:"accept_length"`
}

// specRecord reads the one record under dir: workload name to its level.
func specRecord(b *testing.B, dir string) map[string]specLevel {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		b.Fatalf("got %d records in %s, want 1", len(files), dir)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		b.Fatal(err)
	}
	var rec struct {
		Status    string `json:"status"`
		Error     string `json:"error"`
		Workloads []struct {
			Workload struct {
				Name string `json:"name"`
			} `json:"workload"`
			Levels []specLevel `json:"levels"`
		} `json:"workloads"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		b.Fatal(err)
	}
	if rec.Status != "ok" {
		b.Fatalf("run failed: %s", rec.Error)
	}
	out := map[string]specLevel{}
	for _, w := range rec.Workloads {
		if len(w.Levels) > 0 {
			out[w.Workload.Name] = w.Levels[0]
		}
	}
	return out
}

// BenchmarkBenchSpecAccuracy runs `sglaunch bench --url` against the
// simulator with 2 tokens per chunk and reports, per API at concurrency 1
// and 32, the median per-token ITL and its error against the configured
// 10 ms, the median chunk gap, the accept length's error against 2, and
// at concurrency 128 (one wave) how far the mean TTFT is above the median.
// With SGLAUNCH_PERF_BASELINE=/path/to/an/older/sglaunch it measures that
// binary too, against the same server, its metrics prefixed base-.
func BenchmarkBenchSpecAccuracy(b *testing.B) {
	url := startSpecSim(b)
	type run struct {
		prefix, bin, file, records string
		env                        *perfenv.Env
		levels                     map[string]specLevel
	}
	runs := []*run{{bin: perfenv.Binary(b)}}
	if base := os.Getenv("SGLAUNCH_PERF_BASELINE"); base != "" {
		runs = append(runs, &run{prefix: "base-", bin: base})
	}
	for _, r := range runs {
		r.env = perfenv.New(b, nil, "")
		r.file, r.records = filepath.Join(r.env.Dir, "spec.yaml"), filepath.Join(r.env.Dir, "records")
		if err := os.WriteFile(r.file, []byte(specWorkers), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		for _, r := range runs {
			os.RemoveAll(r.records)
			ctx, cancel := context.WithTimeout(b.Context(), 15*time.Minute)
			like := r.env.Command(b, "bench", "--url", url, "--workload", r.file, "--dir", r.records)
			cmd := exec.CommandContext(ctx, r.bin, like.Args[1:]...)
			cmd.Env, cmd.Dir, cmd.SysProcAttr = like.Env, like.Dir, like.SysProcAttr
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				b.Fatalf("%sbench: %v\n%s", r.prefix, err, out)
			}
			r.levels = specRecord(b, r.records)
		}
	}
	for _, r := range runs {
		for _, name := range []string{"gen-c1", "gen-c32", "chat-c1", "chat-c32"} {
			m := r.levels[name]
			b.ReportMetric(m.Metrics["median_itl_ms"], r.prefix+name+"-itl-ms")
			b.ReportMetric(pctOff(m.Metrics["median_itl_ms"], specITLms), r.prefix+name+"-itl-err-%")
			b.ReportMetric(m.Metrics["median_chunk_gap_ms"], r.prefix+name+"-gap-ms")
			b.ReportMetric(pctOff(m.AcceptLength, specAccept), r.prefix+name+"-accept-err-%")
		}
		w := r.levels["wave-c128"].Metrics
		b.ReportMetric(w["mean_ttft_ms"], r.prefix+"c128-ttft-mean-ms")
		b.ReportMetric(w["median_ttft_ms"], r.prefix+"c128-ttft-median-ms")
		b.ReportMetric(pctOff(w["mean_ttft_ms"], w["median_ttft_ms"]), r.prefix+"c128-mean-over-median-%")
	}
	b.ReportMetric(0, "ns/op")
}
