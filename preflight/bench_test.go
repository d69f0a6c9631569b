package preflight

import (
	"context"
	"testing"
)

// BenchmarkRunDemoCold is preflight.Run in-process with no cache: the
// probe and --help run concurrently, then the sources are scanned.
func BenchmarkRunDemoCold(b *testing.B) {
	plan := demoPlan(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		state := b.TempDir()
		b.StartTimer()
		if r := Run(context.Background(), plan, Options{StateDir: state}); r.Failed() || r.SGLang.Flags != "--help" {
			b.Fatalf("cold run: %+v", r.SGLang)
		}
	}
}

// BenchmarkRunDemoCached is preflight.Run in-process with the flag list
// cached: one probe.
func BenchmarkRunDemoCached(b *testing.B) {
	plan := demoPlan(b)
	state := b.TempDir()
	Run(context.Background(), plan, Options{StateDir: state})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Run(context.Background(), plan, Options{StateDir: state}); r.Failed() || r.SGLang.Flags != "--help (cached)" {
			b.Fatalf("cached run: %+v", r.SGLang)
		}
	}
}
