package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitNewlinePathInjectsNothing: a newline in the profile's path
// ended one of the unit's header comments, and what followed it
// (ExecStartPre=...) was parsed by systemd as a directive. Every value
// in a comment is now written line-safe.
func TestUnitNewlinePathInjectsNothing(t *testing.T) {
	analyze := needTool(t, "systemd-analyze", "systemd")
	e := newEnv(t)
	dir := filepath.Join(t.TempDir(), "a\nExecStartPre=/bin/false\nb%n")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(profile, []byte("extends: demo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.Run("unit", "--profile", profile, "--name", "inject")
	if code != 0 {
		t.Fatalf("unit: exit %d\n%s", code, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "ExecStartPre") || strings.HasPrefix(line, "b%n") {
			t.Errorf("the profile path injected the line %q:\n%s", line, stdout)
		}
	}
	path := filepath.Join(t.TempDir(), "inject.service")
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("systemd-analyze verify: %v, want no warnings:\n%s\nunit:\n%s", err, out, stdout)
	}
	// The unit still runs the profile at its real path.
	if !strings.Contains(stdout, `\nExecStartPre=/bin/false\nb%%n/mine.yaml"`) {
		t.Errorf("ExecStart must name the profile's path, escaped:\n%s", stdout)
	}
}
