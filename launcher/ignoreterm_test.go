//go:build linux

package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
)

// TestIgnoreSIGTERMKeepsPidArgvAndExe: a server started with SIGTERM
// ignored (a multi-node rank under Slurm, whose scancel signals every
// process of a step, issue 22) runs its own executable and argv in the
// pid sglaunch started, with SIGTERM ignored, by the time Start
// returns (so that the identity recorded next is the server's, not the
// shell's); a SIGTERM to it is ignored.
func TestIgnoreSIGTERMKeepsPidArgvAndExe(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	sleep, _ = filepath.EvalSymlinks(sleep)
	p := &plan.Plan{Profile: "sleep", Argv: []string{sleep, "30"}, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	p.ApplySettings(plan.DefaultSettings())
	var out testkit.SyncBuffer
	s, err := Start(context.Background(), p, Options{Stdout: &out, Stderr: &out, IgnoreSIGTERM: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Stop(context.Background(), syscall.SIGKILL, 0) })
	if exe, err := proc.Exe(s.PID()); err != nil || exe != sleep {
		t.Errorf("the pid runs %q (%v), want %q", exe, err, sleep)
	}
	testkit.WaitExeced(t, s.PID())
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.PID()))
	if got := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00"); strings.Join(got, " ") != strings.Join(p.Argv, " ") {
		t.Errorf("argv %q, want %q", got, p.Argv)
	}
	if !ignores(t, s.PID(), syscall.SIGTERM) {
		t.Error("SIGTERM is not ignored")
	}
	syscall.Kill(s.PID(), syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	if !s.Running() || !proc.Alive(s.PID()) {
		t.Error("the server ended on SIGTERM")
	}
}

// ignores reports whether pid ignores sig, from /proc/PID/status.
func ignores(t *testing.T, pid int, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatal("no SigIgn line")
	return false
}
