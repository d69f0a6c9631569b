package runstate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
)

func TestWriteListRemove(t *testing.T) {
	dir := t.TempDir()
	live := &State{LaunchID: NewLaunchID(), Profile: "demo", ServerPID: 1, Port: 30000, Load: health.Load{StartedAt: time.Now()}}
	live.SetSglaunch(os.Getpid())
	dead := &State{LaunchID: NewLaunchID(), Profile: "old", SglaunchPID: 1 << 30, ServerPID: 2}
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
	if err := Remove(dir, live.LaunchID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(File(dir, live.LaunchID)); !os.IsNotExist(err) {
		t.Errorf("state file still there: %v", err)
	}
	if err := Write(dir, &State{LaunchID: "../x"}); err == nil {
		t.Error("a launch id with a path in it was written")
	}
}

// TestStateKeyedByProfile pins issue 12, defect 8: the state file was
// named after the profile, so a second serve of one profile overwrote
// the first's state and the first became invisible to verify. Each
// launch has its own file.
func TestStateKeyedByProfile(t *testing.T) {
	dir := t.TempDir()
	for range 2 {
		s := &State{LaunchID: NewLaunchID(), Profile: "demo"}
		s.SetSglaunch(os.Getpid())
		if err := Write(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(dir)
	if err != nil || len(list) != 2 || list[0].LaunchID == list[1].LaunchID {
		t.Fatalf("got %d states (%v), want 2 launches of demo", len(list), err)
	}
}

// TestStaleStateWithReusedPID pins issue 12, defect 8: a state whose
// sglaunch had died was trusted once its pid was reused by another
// process (verify reported "still loading", or drift against an
// unrelated process). A pid counts only with its start time in the same
// boot.
func TestStaleStateWithReusedPID(t *testing.T) {
	dir := t.TempDir()
	s := &State{LaunchID: NewLaunchID(), Profile: "demo"}
	s.SetSglaunch(os.Getpid())
	s.SetServer(os.Getpid())
	s.SglaunchStart++ // the pid now runs another process
	s.ServerStart++
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	list, _ := List(dir)
	if len(list) != 1 || !list[0].Stale || list[0].ServerRunning() {
		t.Fatalf("a state with a reused pid is trusted: %+v", list)
	}
	s.SetSglaunch(os.Getpid())
	s.BootID = "00000000-0000-0000-0000-000000000000"
	_ = Write(dir, s)
	if list, _ := List(dir); !list[0].Stale {
		t.Error("a state of another boot is trusted")
	}
	// A state an older sglaunch wrote (no boot id) is judged by its
	// executable.
	s.SetSglaunch(os.Getpid())
	s.BootID, s.SglaunchExe = "", "/elsewhere/sglaunch"
	_ = Write(dir, s)
	if list, _ := List(dir); !list[0].Stale {
		t.Error("an older state whose pid runs another executable is trusted")
	}
}

// TestProfilePathLookup pins issue 12, defect 8: `verify --profile
// ./path.yaml` compared the path with the profile's name and never found
// its own launch. A state matches its profile's name and its file.
func TestProfilePathLookup(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "path.yaml")
	if err := os.WriteFile(file, []byte("name: path\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &State{Profile: "path", Source: SourceOf(file)}
	t.Chdir(dir)
	for _, ref := range []string{"path", "./path.yaml", file, "path.yaml"} {
		if !s.Matches(ref) {
			t.Errorf("Matches(%q) = false", ref)
		}
	}
	for _, ref := range []string{"other", "./other.yaml"} {
		if s.Matches(ref) {
			t.Errorf("Matches(%q) = true", ref)
		}
	}
	if (&State{Profile: "b", Source: "built-in"}).Matches("./b.yaml") {
		t.Error("a built-in profile matched a path")
	}
}
