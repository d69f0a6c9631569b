package runstate

import (
	"os"
	"path/filepath"
	"testing"
)

// TestListAllReadsUnitDirectories: a systemd unit of another account
// keeps its runtime state in a directory of its own beside the host's
// (sglaunch-UNIT); status and verify (ListAll) read those too, a
// launch's own sweep (List) does not.
func TestListAllReadsUnitDirectories(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "sglaunch")
	unit := filepath.Join(base, "sglaunch-sglang-kimi")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(unit, 0o700); err != nil {
		t.Fatal(err)
	}
	for d, profile := range map[string]string{dir: "operator", unit: "kimi"} {
		s := &State{LaunchID: NewLaunchID(), Profile: profile, ServerPID: 1}
		s.SetSglaunch(os.Getpid())
		if err := Write(d, s); err != nil {
			t.Fatal(err)
		}
	}
	own, err := List(dir)
	if err != nil || len(own) != 1 || own[0].Profile != "operator" {
		t.Errorf("List: %v (%v), want the operator's launch alone", own, err)
	}
	all, err := ListAll(dir)
	if err != nil || len(all) != 2 {
		t.Fatalf("ListAll: %d states (%v), want 2", len(all), err)
	}
	if all[0].Profile != "kimi" || all[1].Profile != "operator" {
		t.Errorf("ListAll: %s, %s; want kimi, operator", all[0].Profile, all[1].Profile)
	}
}
