package runstate

import (
	"os"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
)

func TestWriteListRemove(t *testing.T) {
	dir := t.TempDir()
	live := &State{Profile: "demo", SglaunchPID: os.Getpid(), ServerPID: 1, Port: 30000, Load: health.Load{StartedAt: time.Now()}}
	dead := &State{Profile: "old", SglaunchPID: 1 << 30, ServerPID: 2}
	for _, s := range []*State{live, dead} {
		if err := Write(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(dir)
	if err != nil || len(list) != 2 {
		t.Fatalf("got %d states (%v), want 2", len(list), err)
	}
	for _, s := range list {
		if want := s.Profile == "old"; s.Stale != want {
			t.Errorf("%s: stale=%v, want %v", s.Profile, s.Stale, want)
		}
	}
	if err := Remove(dir, "demo", os.Getpid()+1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(File(dir, "demo")); err != nil {
		t.Error("Remove deleted a file that belongs to another sglaunch")
	}
	if err := Remove(dir, "demo", os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(File(dir, "demo")); !os.IsNotExist(err) {
		t.Errorf("state file still there: %v", err)
	}
}
