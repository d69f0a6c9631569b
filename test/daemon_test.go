package test

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// findDaemon is the pid of the sim's double-forked daemon ("sglang::daemon"),
// found among all processes: once its middle parent exits it is nobody's
// descendant but a subreaper's.
func findDaemon(t *testing.T) int {
	t.Helper()
	var pid int
	testkit.WaitFor(t, waitTimeout, "the double-forked daemon", func() bool {
		all, err := proc.All()
		if err != nil {
			t.Fatal(err)
		}
		for p, st := range all {
			if strings.Contains(st.Comm, "sglang::daemon") && st.State != 'Z' {
				pid = p
				return true
			}
		}
		return false
	})
	return pid
}

// TestServeStopsDoubleForkedDaemon: a daemon that a server's process
// started the classic way (fork, setsid, fork, the middle exits) leads
// no session and was adopted by sglaunch after the tree was last seen,
// so it outlived every stop (8 of 8). sglaunch now takes an adopted
// child that carries its launch id for the tree's, and ends it with
// the tree.
//
// Not parallel: findDaemon knows the daemon by its title, which another
// test's daemon would share.
func TestServeStopsDoubleForkedDaemon(t *testing.T) {
	e := newEnv(t)
	simProfile(t, e, "daemon", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_DAEMON": "1"}, "")
	p := e.Start("serve", "--profile", "daemon")
	waitServeHealthy(t, p)
	daemon := findDaemon(t)
	st, err := proc.ReadStat(daemon)
	if err != nil {
		t.Fatal(err)
	}
	if st.SID == daemon || st.PGID == daemon {
		t.Fatalf("daemon %d leads its session or group (sid %d, pgid %d): not a double fork", daemon, st.SID, st.PGID)
	}
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	p.Wait(t, commandTimeout)
	allGone(t, []int{daemon})
}

// TestNextStartEndsDoubleForkedDaemon: after a kill -9 of sglaunch the
// daemon is init's; the next start finds it by the dead launch's id and
// ends it before it loads.
// Not parallel, as TestServeStopsDoubleForkedDaemon.
func TestNextStartEndsDoubleForkedDaemon(t *testing.T) {
	e := newEnv(t)
	port := simProfile(t, e, "daemon", map[string]string{"SGLANG_SIM_LOAD_SECONDS": "0.3", "SGLANG_SIM_DAEMON": "1"}, "")
	p, _ := serveHealthy(t, e, "daemon", port)
	daemon := findDaemon(t)
	_ = p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t, commandTimeout)
	t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) })
	testkit.WaitFor(t, goneBound, "the port to be free", func() bool { return healthStatus(port) == 0 })
	if !proc.Alive(daemon) {
		t.Fatal("the daemon died with sglaunch's kill -9: the scenario no longer reproduces")
	}
	next, _ := serveHealthy(t, e, "daemon", port)
	testkit.WaitFor(t, goneBound, "the old daemon to be ended", func() bool { return !proc.Alive(daemon) })
	if want := fmt.Sprintf("pid %d sglang::daemon", daemon); !strings.Contains(next.Stderr(), want) {
		t.Errorf("the next start does not say it ended %q:\n%s", want, next.Stderr())
	}
	_ = next.Cmd.Process.Signal(syscall.SIGTERM)
	next.Wait(t, commandTimeout)
}
