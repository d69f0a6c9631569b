package health

import (
	"bytes"
	"fmt"
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
	tr := NewTracker(time.Now())
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		tr.Observe(block)
	}
}
