package systemd

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sglaunch/sglaunch/internal/proc"
)

// TestOnUnhealthyLogIsNeverKilled pins B9: with on_unhealthy: log the
// WATCHDOG pings stopped at the first failed probe while the unit still
// had WatchdogSec= and WatchdogSignal=SIGTERM, so "log only" killed the
// server anyway. The unit has no watchdog now, and sglaunch keeps
// pinging even where a drop-in adds one.
func TestOnUnhealthyLogIsNeverKilled(t *testing.T) {
	m := needMachine(t)
	p := profile(t, m, "logonly", 31101, map[string]string{"SGLANG_SIM_HANG_AFTER_READY": "1", "SGLANG_HEALTH_CHECK_TIMEOUT": "1"},
		"health:\n  interval: 500ms\n  failure_threshold: 2\n  request_timeout: 2s\n  on_unhealthy: log\nstop_timeout: 3s\n")
	unit := m.unit(t, "e2e-logonly", p, nil, map[string]string{"watchdog.conf": "[Service]\nWatchdogSec=" + strconv.Itoa(int(dropinWatchdog/time.Second)) + "s\n"})
	if strings.Contains(unit, "\nWatchdogSec=") {
		t.Errorf("the unit has a watchdog under on_unhealthy: log:\n%s", unit)
	}
	m.systemctl(t, "start", "e2e-logonly")
	m.waitJournal(t, "e2e-logonly", 3, "leaving it running (health.on_unhealthy: log)")
	time.Sleep(3 * dropinWatchdog)
	st := m.show(t, "e2e-logonly", "ActiveState", "NRestarts", "Result")
	if st["ActiveState"] != "active" || st["NRestarts"] != "0" || st["Result"] != "success" {
		t.Errorf("a server under on_unhealthy: log was stopped: %v\n%s", st, m.journalText(t, "e2e-logonly"))
	}
	for _, e := range m.journal(t, "e2e-logonly") {
		if strings.Contains(e.Message, "Watchdog timeout") {
			t.Errorf("systemd's watchdog fired: %q", e.Message)
		}
	}
}

// dropinWatchdog is the watchdog an operator's drop-in adds.
const dropinWatchdog = 2 * time.Second

// TestWatchdogPingsAfterRecovery pins B11: after a probe failed and
// recovered, the next ping waited for the next tick, at half of
// WatchdogSec, and could land on systemd's deadline. The server is
// frozen for less than failure_threshold probes, just after a ping: the
// recovery must ping at once, and the unit lives on.
func TestWatchdogPingsAfterRecovery(t *testing.T) {
	m := needMachine(t)
	// SGLang's /health sleeps 1 s before its first check, and the sim
	// does too: a 1 s probe timeout needs it scaled down.
	p := profile(t, m, "recover", 31102, map[string]string{"SGLANG_SIM_HEALTH_POLL_SECONDS": "0.1"},
		"health:\n  interval: 1s\n  failure_threshold: 5\n  request_timeout: 1s\n")
	unit := m.unit(t, "e2e-recover", p, nil, nil)
	if !strings.Contains(unit, "\nWatchdogSec=11s\n") { // 5 × (1s + 1s) + 1s
		t.Fatalf("want WatchdogSec=11s:\n%s", unit)
	}
	m.systemctl(t, "start", "e2e-recover")
	server := serverPID(t, m, "e2e-recover")

	lastPing := func() time.Duration {
		v := m.show(t, "e2e-recover", "WatchdogTimestampMonotonic")["WatchdogTimestampMonotonic"]
		us, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("WatchdogTimestampMonotonic %q: %v", v, err)
		}
		return time.Duration(us) * time.Microsecond
	}
	before := lastPing()
	deadline := time.Now().Add(waitTimeout)
	for lastPing() == before {
		if time.Now().After(deadline) {
			t.Fatalf("no watchdog ping within %v\n%s", waitTimeout, m.journalText(t, "e2e-recover"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Just after a ping: the next tick is 5.5 s away.
	if err := syscall.Kill(server, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(freeze)
	if err := syscall.Kill(server, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	m.waitJournal(t, "e2e-recover", 4, "liveness probe failed (2/5)")
	m.waitJournal(t, "e2e-recover", 6, "server healthy again")
	if age := monotonic(t) - lastPing(); age > recoveryPing {
		t.Errorf("last watchdog ping %v ago once the server recovered, want within %v", age.Round(time.Millisecond), recoveryPing)
	}
	time.Sleep(2 * time.Second)
	if st := m.show(t, "e2e-recover", "ActiveState", "NRestarts"); st["ActiveState"] != "active" || st["NRestarts"] != "0" {
		t.Errorf("after the recovery: %v\n%s", st, m.journalText(t, "e2e-recover"))
	}
}

const (
	// freeze holds the server for 3 failed probes of 1 s, below
	// failure_threshold 5.
	freeze = 3500 * time.Millisecond
	// recoveryPing bounds the age of the last ping once the recovery is
	// logged: the recovery pings at once; the next tick would be 2 s
	// later still.
	recoveryPing = 2500 * time.Millisecond
)

func monotonic(t *testing.T) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

// serverPID is the host pid of the unit's server: sglaunch's child that
// runs sglang.launch_server.
func serverPID(t *testing.T, m *machine, unit string) int {
	t.Helper()
	for _, pid := range m.unitPIDs(t, unit) {
		argv, err := proc.Cmdline(pid)
		if err != nil || !strings.Contains(strings.Join(argv, " "), "-m sglang.launch_server") {
			continue
		}
		st, err := proc.ReadStat(pid)
		if err != nil {
			continue
		}
		if parent, err := proc.Cmdline(st.PPID); err == nil && len(parent) > 0 && strings.HasSuffix(parent[0], "/sglaunch") {
			return pid
		}
	}
	t.Fatalf("no server process in %s: %v", unit, m.unitPIDs(t, unit))
	return 0
}
