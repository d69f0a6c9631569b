package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// NeedTool finds a tool a test needs (promtool, prometheus). Outside CI
// a missing tool skips the test, saying which Debian package has it; in
// CI (CI set) it fails: .ci/run installs it.
func NeedTool(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found; CI must install Debian's %s", name, pkg)
	}
	t.Skipf("%s not found (install Debian's %s); CI runs this test", name, pkg)
	return ""
}
