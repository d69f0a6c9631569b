package leftovers

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/plan"
)

// startMarked starts a sleep in a session of its own (out of reach of
// any process group kill) carrying launch id in its environment.
func startMarked(t *testing.T, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), plan.LaunchIDVar + "=" + id}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestSweepEndsOnlyDeadLaunches pins issue 12, defect 7 at the package
// level: what a launch whose sglaunch is gone left (a setsid process
// carrying its id, a scratch directory) is ended and removed, with its
// state file; a live launch's processes and a process without the id
// are left alone.
func TestSweepEndsOnlyDeadLaunches(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())

	dead := &runstate.State{LaunchID: runstate.NewLaunchID(), Profile: "gone", Mode: "serve", SglaunchPID: 1 << 30}
	live := &runstate.State{LaunchID: runstate.NewLaunchID(), Profile: "alive", Mode: "serve"}
	live.SetSglaunch(os.Getpid())
	for _, s := range []*runstate.State{dead, live} {
		if err := runstate.Write(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	orphan := startMarked(t, dead.LaunchID)
	spared := startMarked(t, live.LaunchID)
	scratch, err := os.MkdirTemp("", ScratchPrefix+dead.LaunchID+"-")
	if err != nil {
		t.Fatal(err)
	}
	// The sleeps must have exec'd (their environ is the new one) before
	// the sweep reads it.
	time.Sleep(100 * time.Millisecond)

	ended, err := Sweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != 1 || len(ended[0].Processes) != 1 || ended[0].Processes[0].PID != orphan.Process.Pid {
		t.Fatalf("ended %+v, want the orphan %d alone", ended, orphan.Process.Pid)
	}
	msg := ended[0].String()
	for _, want := range []string{dead.LaunchID, "profile gone", "is gone", "sleep (sleep 300)", "scratch directory " + scratch} {
		if !strings.Contains(msg, want) {
			t.Errorf("report %q lacks %q", msg, want)
		}
	}
	_ = orphan.Wait()
	if !proc.Alive(spared.Process.Pid) {
		t.Error("a live launch's process was ended")
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("scratch directory left: %v", err)
	}
	if _, err := os.Stat(runstate.File(dir, dead.LaunchID)); !os.IsNotExist(err) {
		t.Errorf("dead launch's state left: %v", err)
	}
	if _, err := os.Stat(runstate.File(dir, live.LaunchID)); err != nil {
		t.Errorf("live launch's state removed: %v", err)
	}
	if again, err := Sweep(dir); err != nil || len(again) != 0 {
		t.Errorf("second sweep: %+v, %v; want nothing", again, err)
	}
}
