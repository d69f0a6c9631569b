package status

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLaunchesCountRestartsAndTheLastExit(t *testing.T) {
	c := useClock(t)
	dir := t.TempDir()
	first, err := CountLaunch(dir, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if first.Count != 1 || first.Restarts() != 0 || first.LastExit != nil || !first.Since.Equal(c.Now()) {
		t.Fatalf("first launch: got %+v, want count 1 since now, no exit", first)
	}
	if err := RecordExit(dir, "demo", Exit{At: c.Add(time.Minute), Status: 137, Code: 1, Reason: "server unhealthy"}); err != nil {
		t.Fatal(err)
	}
	c.Add(10 * time.Second)
	second, err := CountLaunch(dir, "demo")
	if err != nil {
		t.Fatal(err)
	}
	if second.Count != 2 || second.Restarts() != 1 || second.LastExit == nil || second.LastExit.Status != 137 || !second.Since.Equal(first.Since) {
		t.Errorf("second launch: got %+v, want count 2, one restart, the first run's exit 137", second)
	}
	if other, _ := CountLaunch(dir, "other"); other.Count != 1 {
		t.Errorf("another profile: got %+v, want its own count", other)
	}
	// A damaged file starts the count again rather than failing a launch.
	if err := os.WriteFile(filepath.Join(dir, "launches", "demo.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := CountLaunch(dir, "demo"); err != nil || again.Count != 1 {
		t.Errorf("damaged file: got %+v, %v; want a fresh count", again, err)
	}
}

// TestExitedRecordsForTheNextLaunch: the state writes its end where the
// next launch reads it.
func TestExitedRecordsForTheNextLaunch(t *testing.T) {
	useClock(t)
	dir := t.TempDir()
	info := testInfo()
	var err error
	if info.Launches, err = CountLaunch(dir, info.Profile); err != nil {
		t.Fatal(err)
	}
	info.LaunchesDir = dir
	s := NewState(info)
	s.Exited(1, 1, nil)
	next, err := CountLaunch(dir, info.Profile)
	if err != nil || next.LastExit == nil || next.LastExit.Status != 1 || next.Restarts() != 1 {
		t.Errorf("next launch: got %+v, %v; want the last exit 1 and one restart", next, err)
	}
}
