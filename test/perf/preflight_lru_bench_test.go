package perf

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Preflight's cache with two interpreters used in turn:
//
//	go test ./test/perf -run '^$' -bench PreflightAlternating -benchtime 10x
//
// Each iteration runs, one after the other, a cold preflight (a new
// state directory: --help and the source scan run) and a preflight of
// each of two interpreters (the real python3 and a link to it, so two
// cache keys for one SGLang) against a state directory they share; the
// ratio is cold ÷ cached, medians over the iterations.

// preflightPython is preflight with the profile's python: set to py.
func preflightPython(b *testing.B, home, state, py string, port int) time.Duration {
	start := time.Now()
	preflight(b, home, state, port, "python="+py)
	return time.Since(start)
}

func BenchmarkPreflightAlternating(b *testing.B) {
	home, state, port := b.TempDir(), b.TempDir(), testkit.FreePort(b)
	real := testkit.RealPython(b)
	other := filepath.Join(b.TempDir(), "python3")
	if err := os.Symlink(real, other); err != nil {
		b.Fatal(err)
	}
	pythons := []string{real, other}
	for _, py := range pythons { // unpacks the simulator, fills the cache
		preflightPython(b, home, state, py, port)
	}
	var cold, cached []float64
	for b.Loop() {
		cold = append(cold, preflightPython(b, home, b.TempDir(), real, port).Seconds())
		for _, py := range pythons {
			cached = append(cached, preflightPython(b, home, state, py, port).Seconds())
		}
	}
	mc, mh := medianOf(cold), medianOf(cached)
	b.ReportMetric(mc*1000, "cold-ms")
	b.ReportMetric(mh*1000, "cached-ms")
	b.ReportMetric(mc/mh, "cold/cached")
	b.ReportMetric(0, "ns/op")
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
