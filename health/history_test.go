package health

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHistoryEstimate(t *testing.T) {
	h := History{Dir: t.TempDir()}
	if e, err := h.Estimate("abc"); err != nil || e.Loads != 0 {
		t.Fatalf("empty history: got %+v, %v", e, err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, s := range []int{100, 300, 200, 400} {
		if err := h.Record("abc", testLoad(at.Add(time.Duration(i)*time.Hour), time.Duration(s)*time.Second, []Phase{{PhaseWeightsLoaded, time.Second}})); err != nil {
			t.Fatal(err)
		}
	}
	e, err := h.Estimate("abc")
	if err != nil {
		t.Fatal(err)
	}
	if e.Loads != 4 || e.Typical != 250*time.Second {
		t.Errorf("got %d loads, typical %v; want 4, 250s", e.Loads, e.Typical)
	}
	if left, ok := e.Remaining(50 * time.Second); !ok || left != 200*time.Second {
		t.Errorf("remaining after 50s: got %v %v, want 200s", left, ok)
	}
	if _, ok := e.Remaining(300 * time.Second); ok {
		t.Error("remaining past the typical time: got a value, want none")
	}
	if other, _ := h.Estimate("other"); other.Loads != 0 {
		t.Errorf("another fingerprint: got %d loads, want 0", other.Loads)
	}
}

func TestHistoryKeepsLatest(t *testing.T) {
	h := History{Dir: t.TempDir()}
	for i := 1; i <= keepLoads+5; i++ {
		if err := h.Record("fp", testLoad(time.Now(), time.Duration(i)*time.Second, nil)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := h.read("fp")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Loads) != keepLoads || f.Loads[0].Seconds != 6 {
		t.Errorf("got %d loads starting at %vs, want %d starting at 6s", len(f.Loads), f.Loads[0].Seconds, keepLoads)
	}
}

func TestHistoryDamagedFile(t *testing.T) {
	h := History{Dir: t.TempDir()}
	path := filepath.Join(h.Dir, "loads", "fp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if e, err := h.Estimate("fp"); err == nil || e.Loads != 0 {
		t.Errorf("damaged file: got %+v, %v; want no estimate and an error", e, err)
	}
	if err := h.Record("fp", testLoad(time.Now(), time.Second, nil)); err != nil {
		t.Fatalf("record over a damaged file: %v", err)
	}
	if e, err := h.Estimate("fp"); err != nil || e.Loads != 1 {
		t.Errorf("after record: got %+v, %v; want 1 load", e, err)
	}
}

func TestHistoryWithoutDir(t *testing.T) {
	var h History
	if err := h.Record("fp", testLoad(time.Now(), time.Second, nil)); err != nil {
		t.Errorf("record without a dir: %v", err)
	}
	if e, err := h.Estimate("fp"); err != nil || e.Loads != 0 {
		t.Errorf("estimate without a dir: got %+v, %v", e, err)
	}
}

// testLoad is a load that ended at readyAt after d.
func testLoad(readyAt time.Time, d time.Duration, phases []Phase) Load {
	return Load{StartedAt: readyAt.Add(-d), ReadyAt: readyAt, Seconds: d.Seconds(), Phases: phases}
}
