package systemd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// This file's name sorts last: it adds a system account. Its unit keeps
// its state, cache and runtime directories beside the host's
// (sglaunch-UNIT), so the host's stay root's for the tests after it.

// TestUnitForSystemAccount pins B7: `unit --user U` failed at once for a
// normal system account (mkdir /nonexistent: permission denied): the
// unit had no StateDirectory= and friends, and sglaunch did not read
// $STATE_DIRECTORY.
func TestUnitForSystemAccount(t *testing.T) {
	m := needMachine(t)
	const account = "sglaunch-e2e"
	if _, errOut, code := m.exec(t.Context(), nil, "useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
		"--shell", "/usr/sbin/nologin", account); code != 0 && !strings.Contains(errOut, "already exists") {
		t.Fatalf("useradd: exit %d: %s", code, errOut)
	}
	p := profile(t, m, "account", 31204, nil, "")
	m.unit(t, "e2e-account", p, []string{"--user", account}, nil)
	m.systemctl(t, "start", "e2e-account")
	server := serverPID(t, m, "e2e-account")
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", server))
	if err != nil {
		t.Fatal(err)
	}
	uid, _, _ := m.exec(t.Context(), nil, "id", "-u", account)
	if !regexp.MustCompile(`(?m)^Uid:\s+` + strings.TrimSpace(uid) + `\s`).Match(status) {
		t.Errorf("the server does not run as %s (uid %s):\n%s", account, strings.TrimSpace(uid), status)
	}
	// Its runtime state (one file per launch) lets verify find it.
	if states, _ := filepath.Glob(m.rootPath("/run/sglaunch-e2e-account/*.json")); len(states) == 0 {
		t.Errorf("no runtime state in RuntimeDirectory /run/sglaunch-e2e-account")
	}
	// The simulator sits in the unit's own cache, so PYTHONPATH (the
	// sim's directory) is the one difference from root's plan.
	stdout, _, code := m.sglaunch(t, nil, "verify", "--profile", p, "--unit", "e2e-account")
	if code != 1 || !rowWith(stdout, "DIFFERENT", "PYTHONPATH") || !strings.Contains(stdout, "DRIFT: 1 ") {
		t.Errorf("verify --unit: exit %d, want only PYTHONPATH (the sim's directory) to differ\n%s", code, stdout)
	}
	for _, e := range m.journal(t, "e2e-account") {
		if strings.Contains(e.Message, "/nonexistent") || strings.Contains(e.Message, "cannot remember the load time") {
			t.Errorf("journal: %q", e.Message)
		}
	}
	m.systemctl(t, "stop", "e2e-account")
	if st := m.show(t, "e2e-account", "ActiveState", "Result"); st["ActiveState"] != "inactive" || st["Result"] != "success" {
		t.Errorf("after stop: %v", st)
	}
}

// TestUnitsOfTwoAccountsCoexist pins issue 22, defect 14: units with
// different User= shared /var/lib/sglaunch, /var/cache/sglaunch and
// /run/sglaunch, and systemd re-owned them for each unit in turn; root's
// verify and config then exited 2 ("unsafe directory") and a stale status
// entry stayed. A unit of another account now has directories of its own
// beside the host's, which stay root's; root's status sees both launches
// and neither once they stop.
func TestUnitsOfTwoAccountsCoexist(t *testing.T) {
	m := needMachine(t)
	const account = "sglaunch-e2e"
	if _, errOut, code := m.exec(t.Context(), nil, "useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
		"--shell", "/usr/sbin/nologin", account); code != 0 && !strings.Contains(errOut, "already exists") {
		t.Fatalf("useradd: exit %d: %s", code, errOut)
	}
	pa := profile(t, m, "acct2", 31205, nil, "")
	pr := profile(t, m, "root2", 31206, nil, "")
	m.unit(t, "e2e-acct2", pa, []string{"--user", account}, nil)
	m.unit(t, "e2e-root2", pr, nil, nil)
	m.systemctl(t, "start", "e2e-acct2")
	m.systemctl(t, "start", "e2e-root2")
	m.systemctl(t, "restart", "e2e-acct2")
	for _, d := range []string{"/var/lib/sglaunch", "/var/cache/sglaunch", "/run/sglaunch"} {
		out, _, _ := m.exec(t.Context(), nil, "stat", "-c", "%U", d)
		if strings.TrimSpace(out) != "root" {
			t.Errorf("%s belongs to %q after the units started, want root", d, strings.TrimSpace(out))
		}
	}
	stdout, errOut, code := m.sglaunch(t, nil, "config", "--profile", pr)
	if code != 0 {
		t.Errorf("root's config: exit %d\n%s%s", code, stdout, errOut)
	}
	stdout, errOut, code = m.sglaunch(t, nil, "verify", "--profile", pr, "--unit", "e2e-root2")
	if code != 0 {
		t.Errorf("root's verify of its own unit: exit %d\n%s%s", code, stdout, errOut)
	}
	stdout, errOut, code = m.sglaunch(t, nil, "status")
	if code != 0 || !strings.Contains(stdout, "acct2") || !strings.Contains(stdout, "root2") {
		t.Errorf("status: exit %d, want both launches\n%s%s", code, stdout, errOut)
	}
	m.systemctl(t, "stop", "e2e-acct2")
	m.systemctl(t, "stop", "e2e-root2")
	stdout, _, _ = m.sglaunch(t, nil, "status")
	if strings.Contains(stdout, "acct2") || strings.Contains(stdout, "root2") {
		t.Errorf("status after both stopped still lists a launch:\n%s", stdout)
	}
}
