package health

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkObserveFlood is the tracker's cost per byte of a decode-log
// flood, the output a busy server writes: it must stay far below the cost
// of the copy through the pipe (a few GB/s).
func BenchmarkObserveFlood(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "[2026-11-30 16:18:17 TP0] Decode batch, #running-req: %d, #token: %d, token usage: 0.%02d, gen throughput (token/s): %d.00, #queue-req: 0\n", i%64, 1000+i*7919%90000, i%100, 900+i%3000)
	}
	block := buf.Bytes()
	// start-up: every marker is searched for; served: the port is bound
	// and only the ready line is left (a flood of request logs can only
	// come then).
	for _, tt := range []struct {
		name  string
		first string
	}{{"start-up", ""}, {"served", "INFO:     Uvicorn running on http://127.0.0.1:30000\n"}} {
		b.Run(tt.name, func(b *testing.B) {
			tr := NewTracker(time.Now())
			tr.Observe([]byte(tt.first))
			b.SetBytes(int64(len(block)))
			var ru0, ru1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				tr.Observe(block)
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			// CPU per GiB, to set against the relay's own (launcher's
			// BenchmarkRelayVsCat, plain-cpu-s/GiB): wall time on a
			// shared machine says little.
			cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(cpu.Seconds()/(float64(b.N)*float64(len(block))/(1<<30)), "scan-cpu-s/GiB")
		})
	}
}
