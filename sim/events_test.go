package sim

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readEvents parses an SGLANG_SIM_EVENTS file.
func readEvents(t *testing.T, path string) map[string]time.Time {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, ns, _ := strings.Cut(line, " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if err != nil {
			t.Fatalf("events: bad line %q", line)
		}
		out[name] = time.Unix(0, n)
	}
	return out
}

// TestEvents: SGLANG_SIM_EVENTS stamps the moment /health turns 200 (no
// 200 before it), the flood's ends, and the exit of a crash during the
// load (before the exit status is seen).
func TestEvents(t *testing.T) {
	t.Run("ready and flood", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "events")
		p := startSim(t, []string{"SGLANG_SIM_EVENTS=" + path, "SGLANG_SIM_LOG_FLOOD_BYTES=1000000", "SGLANG_SIM_WARMUP_SECONDS=0.5"})
		deadline := time.Now().Add(startTimeout)
		for {
			resp, err := client.Get(p.url("/health"))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("/health not 200 within %v", startTimeout)
			}
			time.Sleep(pollInterval)
		}
		seen200 := time.Now()
		ev := readEvents(t, path)
		if ev["ready"].IsZero() || ev["ready"].After(seen200) {
			t.Errorf("ready stamp %v, first 200 seen at %v: want the stamp before", ev["ready"], seen200)
		}
		if ev["flood_begin"].IsZero() || ev["flood_end"].Before(ev["flood_begin"]) {
			t.Errorf("flood stamps %v .. %v", ev["flood_begin"], ev["flood_end"])
		}
	})
	t.Run("crash exit", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "events")
		p := startSim(t, []string{"SGLANG_SIM_EVENTS=" + path, "SGLANG_SIM_CRASH_DURING_LOAD=0.1", "SGLANG_SIM_CRASH_EXIT_CODE=4"})
		ws := p.waitExit()
		exited := time.Now()
		if ws.ExitStatus() != 4 {
			t.Errorf("exit status %d, want 4", ws.ExitStatus())
		}
		ev := readEvents(t, path)
		if ev["crash_exit"].IsZero() || ev["crash_exit"].After(exited) {
			t.Errorf("crash_exit stamp %v, exit seen at %v", ev["crash_exit"], exited)
		}
		if !ev["ready"].IsZero() {
			t.Error("a crashed server stamped ready")
		}
	})
}
