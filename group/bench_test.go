package group

import (
	"fmt"
	"testing"
	"time"
)

// benchReport is a rank's report of the size a real one has: the
// reference deployment's plan and 64 weight files.
func benchReport(rank int) Report {
	r := report(rank, map[string]string{"NCCL_PROTO": "LL", "NCCL_ALGO": "Ring", "NCCL_P2P_LEVEL": "SYS", "NCCL_MAX_NCHANNELS": "16",
		"NCCL_BUFFSIZE": "16777216", "NCCL_NTHREADS": "512", "SGLANG_ENABLE_SPEC_V2": "True"})
	r.Plan.Argv = append(r.Plan.Argv, "--model-path", "/models/kimi", "--trust-remote-code", "--cuda-graph-max-bs", "128",
		"--speculative-algorithm", "EAGLE3", "--mem-fraction-static", "0.88")
	for i := range 64 {
		r.Model = append(r.Model, File{Name: fmt.Sprintf("model-%05d-of-00064.safetensors", i+1), Size: 8_500_000_000 + int64(i)})
	}
	for range 8 {
		r.GPUs = append(r.GPUs, "NVIDIA RTX PRO 6000 Blackwell 97887 MiB")
	}
	return r
}

// BenchmarkRendezvous measures the distributed preflight's own cost:
// from every rank's connect to every rank told to load, reports
// compared (the ranks' local probes, which preflight runs anyway, are
// not in it).
func BenchmarkRendezvous(b *testing.B) {
	for _, n := range []int{2, 8} {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				cfg := config(benchReport(0), n, "127.0.0.1:0")
				l, err := Listen(cfg)
				if err != nil {
					b.Fatal(err)
				}
				addr := l.ListenAddr().String()
				done := make(chan error, n)
				ws := make([]*Worker, n-1)
				for i := range ws {
					ws[i] = NewWorker(config(benchReport(i+1), n, addr))
					go func() { _, err := ws[i].Rendezvous(b.Context()); done <- err }()
				}
				if _, err := l.Rendezvous(b.Context()); err != nil {
					b.Fatal(err)
				}
				for range ws {
					if err := <-done; err != nil {
						b.Fatal(err)
					}
				}
				total += time.Since(start)
				for _, w := range ws {
					w.Close()
				}
				l.Close()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/rendezvous")
		})
	}
}
