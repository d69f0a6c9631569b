package health

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// reLogTime is the time in SGLang's log prefix, "[2026-04-10 09:00:07 TP0]".
var reLogTime = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[ \]]`)

// TestPhasesFromStartupLogs feeds start-up logs written with the format
// strings of several SGLang releases (testdata/startup-*.log: v0.5.10's
// "Capture cuda graph begin", v0.5.15's per-set "Capture target decode
// CUDA graph begin" logged by every rank, main's speculative decoding,
// labelled KV pools, post-capture KV sizing and Granian under
// --enable-http2) to the tracker line by line, each at its log time, and
// pins the phases and the status after every line that changed it.
// Before, the capture phases never matched from v0.5.15 on: the status
// stayed at "KV cache allocated" through the whole capture.
func TestPhasesFromStartupLogs(t *testing.T) {
	logs, err := filepath.Glob(filepath.Join("testdata", "startup-*.log"))
	if err != nil || len(logs) < 2 {
		t.Fatalf("startup logs: %v %v", logs, err)
	}
	for _, path := range logs {
		name := strings.TrimSuffix(filepath.Base(path), ".log")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(raw), "\n")
			start := logTime(t, lines[0])
			now := start
			timeNow = func() time.Time { return now }
			t.Cleanup(func() { timeNow = time.Now })
			tr := NewTracker(start)
			var b strings.Builder
			b.WriteString("status after each line that changed it:\n")
			last := ""
			for i, line := range lines {
				if line == "" {
					continue
				}
				if reLogTime.MatchString(line) {
					now = logTime(t, line)
				}
				tr.Observe([]byte(line))
				if p, ok := tr.Last(); ok && p.Name != last {
					last = p.Name
					fmt.Fprintf(&b, "  line %2d  +%-5v %s\n", i+1, p.At, p.Name)
				}
			}
			b.WriteString("phases:\n")
			for _, p := range tr.Phases() {
				fmt.Fprintf(&b, "  +%-5v %s\n", p.At, p.Name)
			}
			got := b.String()
			for _, want := range []string{PhaseCapturingGraphs, PhaseGraphsCaptured, PhasePortBound, PhaseWarmupDone} {
				if !strings.Contains(got, want) {
					t.Errorf("no %q phase", want)
				}
			}
			testkit.Golden(t, "TestPhasesFromStartupLogs-"+name, got, *testkit.Update)
		})
	}
}

func logTime(t *testing.T, line string) time.Time {
	t.Helper()
	m := reLogTime.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no log time in %q", line)
	}
	at, err := time.Parse("2006-01-02 15:04:05", m[1])
	if err != nil {
		t.Fatal(err)
	}
	return at
}
