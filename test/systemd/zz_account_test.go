package systemd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// This file's name sorts last on purpose: the unit for a system account
// makes /var/cache/sglaunch and /var/lib/sglaunch that account's, and the
// tests that run as root afterwards would refuse them (sglaunch never
// uses a directory another account can write) until its cleanup gives
// them back. The parallel tests run after every serial one, this one
// included, so they rely on that cleanup.

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
	// The unit's State/CacheDirectory= become the account's; give them
	// back to root for the tests after this one, which run as root.
	// Not t.Context(): it is cancelled before the cleanup runs, and the
	// chown never ran.
	t.Cleanup(func() {
		if _, errOut, code := m.exec(context.Background(), nil, "chown", "-R", "root:root", "/var/cache/sglaunch", "/var/lib/sglaunch"); code != 0 {
			t.Errorf("give the state and cache directories back to root: exit %d: %s", code, errOut)
		}
	})
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
	if states, _ := filepath.Glob(m.rootPath("/run/sglaunch/*.json")); len(states) == 0 {
		t.Errorf("no runtime state in RuntimeDirectory /run/sglaunch")
	}
	// Root verifies with a cache of its own: /var/cache/sglaunch is the
	// account's now, and root refuses to run what another account can
	// write. The simulator then sits elsewhere for root than for the
	// service, so PYTHONPATH (the sim's directory) is the one difference.
	stdout, _, code := m.sglaunch(t, operatorEnv("XDG_CACHE_HOME=/root/.cache"), "verify", "--profile", p, "--unit", "e2e-account")
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
