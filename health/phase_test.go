package health

import (
	"strings"
	"testing"
	"time"
)

// fakeClock steps time.Now for tests that read the tracker's times.
func fakeClock(t *testing.T, start time.Time) func(time.Duration) {
	t.Helper()
	now := start
	timeNow = func() time.Time { return now }
	t.Cleanup(func() { timeNow = time.Now })
	return func(d time.Duration) { now = now.Add(d) }
}

func TestTrackerPhases(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	advance := fakeClock(t, start)
	tr := NewTracker(start)
	changed := tr.Changed()
	steps := []struct {
		after time.Duration
		block string
	}{
		{1 * time.Second, "[2026 TP0] Init torch distributed begin.\n"},
		{1 * time.Second, "[2026 TP0] Load weight begin. avail mem=78 GB\n[2026 TP1] Load weight begin. avail mem=78 GB\n"},
		{10 * time.Second, "[2026 TP0] Load weight end. type=X\n"},
		{2 * time.Second, "[2026 TP1] Load weight end. type=X\n"},
		{1 * time.Second, "[2026 TP0] KV Cache is allocated. #tokens: 1\n[2026 TP0] Capture cuda graph begin.\n"},
		{5 * time.Second, "Capturing batches (bs=1): 100%\r"},
		{1 * time.Second, "[2026 TP0] Capture cuda graph end. Time elapsed: 6 s\n"},
		{1 * time.Second, "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n"},
		{1 * time.Second, "[2026] The server is fired up and ready to roll!\n"},
	}
	for _, s := range steps {
		advance(s.after)
		tr.Observe([]byte(s.block))
	}
	select {
	case <-changed:
	default:
		t.Error("Changed was not closed by new phases")
	}
	select {
	case <-tr.ReadySeen():
	default:
		t.Error("ReadySeen not closed after the ready line")
	}
	want := []Phase{
		{PhaseLoadingWeights, 2 * time.Second},
		{PhaseWeightsLoaded, 14 * time.Second}, // the last rank's
		{PhaseKVCache, 15 * time.Second},
		{PhaseCapturingGraphs, 15 * time.Second},
		{PhaseGraphsCaptured, 21 * time.Second},
		{PhasePortBound, 22 * time.Second},
		{PhaseWarmupDone, 23 * time.Second},
	}
	got := tr.Phases()
	if len(got) != len(want) {
		t.Fatalf("got %d phases %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if last, _ := tr.Last(); last.Name != PhaseWarmupDone {
		t.Errorf("last phase: got %q, want %q", last.Name, PhaseWarmupDone)
	}
	if got, want := tr.LastOutput(), start.Add(23*time.Second); !got.Equal(want) {
		t.Errorf("last output: got %v, want %v", got, want)
	}
}

func TestTrackerFinishKeepsOnlyOutputTime(t *testing.T) {
	start := time.Now()
	advance := fakeClock(t, start)
	tr := NewTracker(start)
	tr.Finish()
	advance(time.Minute)
	tr.Observe([]byte("[x TP0] Load weight begin.\n"))
	if n := len(tr.Phases()); n != 0 {
		t.Errorf("got %d phases after Finish, want 0", n)
	}
	if got := tr.LastOutput(); !got.Equal(start.Add(time.Minute)) {
		t.Errorf("last output: got %v, want %v", got, start.Add(time.Minute))
	}
}

// TestTrackerScansLessOncePastPhases: once the port is bound only the
// ready line is left to find (SGLang serves HTTP after its schedulers are
// ready), and once it is found nothing is; the output time is kept
// throughout.
func TestTrackerScansLessOncePastPhases(t *testing.T) {
	start := time.Now()
	advance := fakeClock(t, start)
	tr := NewTracker(start)
	tr.Observe([]byte("INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)\n"))
	advance(time.Second)
	tr.Observe([]byte("[x TP0] Decode batch.\n[x TP0] Load weight begin.\n"))
	if got := names(tr.Phases()); got != PhasePortBound {
		t.Errorf("after the port was bound got phases %q, want only %q", got, PhasePortBound)
	}
	advance(time.Second)
	tr.Observe([]byte("[x] " + ReadyLine + "\n"))
	select {
	case <-tr.ReadySeen():
	default:
		t.Fatal("the ready line after the port was bound was not seen")
	}
	advance(time.Second)
	tr.Observe([]byte("INFO:     Listening at: http://127.0.0.1:30000\n"))
	if got, want := names(tr.Phases()), PhasePortBound+","+PhaseWarmupDone; got != want {
		t.Errorf("got phases %q, want %q", got, want)
	}
	if got := tr.LastOutput(); !got.Equal(start.Add(3 * time.Second)) {
		t.Errorf("last output: got %v, want %v", got, start.Add(3*time.Second))
	}
}

func names(ps []Phase) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Name)
	}
	return strings.Join(s, ",")
}
