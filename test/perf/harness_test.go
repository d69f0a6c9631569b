package perf

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Generous bounds for one run; a benchmark that hits one is broken.
const (
	runTimeout = 2 * time.Minute
)

// events reads the sim's SGLANG_SIM_EVENTS file: "NAME UNIX_NANOS" lines.
func events(b *testing.B, path string) map[string]time.Time {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("sim events: %v (does the sim support SGLANG_SIM_EVENTS?)", err)
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, ns, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil {
			b.Fatalf("sim events: bad line %q", line)
		}
		if _, seen := out[name]; !seen {
			out[name] = time.Unix(0, n)
		}
	}
	return out
}

// stats reports the median, p90 and max of samples in milliseconds.
func stats(b *testing.B, name string, samples []time.Duration) {
	b.Helper()
	if len(samples) == 0 {
		return
	}
	s := append([]time.Duration(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(s[len(s)/2]), name+"-median-ms")
	b.ReportMetric(ms(s[len(s)*9/10]), name+"-p90-ms")
	b.ReportMetric(ms(s[len(s)-1]), name+"-max-ms")
	b.ReportMetric(0, "ns/op") // a wall time per iteration means nothing here
}

// vmHWM is a process's peak resident set size in KiB.
func vmHWM(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}
