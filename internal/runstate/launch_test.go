package runstate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/health"
)

// TestLaunchWritesEveryChange: Begin writes the state, each change is on
// disk when Update returns, and End removes the file.
func TestLaunchWritesEveryChange(t *testing.T) {
	dir := t.TempDir()
	l, err := Begin(dir, NewState(nil, "bench", "http://127.0.0.1:1"), func(err error) { t.Errorf("warned: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	read := func() *State {
		t.Helper()
		list, err := List(dir)
		if err != nil || len(list) != 1 {
			t.Fatalf("got %d states (%v), want 1", len(list), err)
		}
		return list[0]
	}
	if st := read(); st.LaunchID != l.ID() || !st.NoServer || st.URL != "http://127.0.0.1:1" || st.Stale {
		t.Errorf("first write: %+v", st)
	}
	steps := []struct {
		name  string
		apply func()
		check func(*State) bool
	}{
		{"status URL", func() { l.Update(func(s *State) { s.StatusURL = "http://127.0.0.1:2" }) }, func(s *State) bool { return s.StatusURL == "http://127.0.0.1:2" }},
		{"started", func() { l.Started(os.Getpid()) }, func(s *State) bool { return s.ServerPID == os.Getpid() && s.ServerStart != 0 && s.BootID != "" }},
		{"ready", func() { l.Ready(health.Load{Seconds: 1.5}) }, func(s *State) bool { return s.Seconds == 1.5 }},
	}
	for _, st := range steps {
		st.apply()
		if got := read(); !st.check(got) {
			t.Errorf("%s: not on disk after the change: %+v", st.name, got)
		}
	}
	if read().StatusURL != "http://127.0.0.1:2" {
		t.Error("a later change lost an earlier one")
	}
	l.End()
	if list, _ := List(dir); len(list) != 0 {
		t.Errorf("End left %d state files", len(list))
	}
}

// TestUnwritableRuntimeDirRefusesLaunch pins issue 22: an unwritable
// runtime directory let serve run untracked (a warning, then no state
// file: status, verify and the next start's sweep could not find it).
// The first write's failure is now an error naming the directory; a
// later one is warned.
func TestUnwritableRuntimeDirRefusesLaunch(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Begin(file, NewState(nil, "bench", ""), func(error) { t.Error("warned instead of failing") })
	if err == nil || l != nil || !strings.Contains(err.Error(), file) {
		t.Fatalf("Begin in a file: %v, %v; want an error naming %s", l, err, file)
	}
	l.End() // a launch never begun has nothing to remove

	dir := t.TempDir()
	var warned int
	l, err = Begin(dir, NewState(nil, "bench", ""), func(error) { warned++ })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l.Started(os.Getpid())
	if warned != 1 {
		t.Errorf("a later failed write warned %d times, want 1", warned)
	}
}
