package verify

import "testing"

// TestPinnedPython pins issue 22: verify --unit resolved `python:
// python3` in the verifier's PATH instead of the interpreter the unit's
// ExecStart pins, a false DRIFT on python. The pin is read from the
// unit's sglaunch command line.
func TestPinnedPython(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/local/bin/sglaunch", "serve", "--profile", "/etc/p.yaml", "--set", "python=/opt/venv/bin/python3"}, "/opt/venv/bin/python3"},
		{[]string{"sglaunch", "serve", "--set=python=/opt/a/python3", "--set", "python=/opt/b/python3"}, "/opt/b/python3"},
		{[]string{"sglaunch", "serve", "--set", "python=python3"}, ""},
		{[]string{"sglaunch", "serve", "--set", "env.PYTHONPATH=/x"}, ""},
		{[]string{"sglaunch", "serve", "--set"}, ""},
	}
	for _, tt := range tests {
		if got := pinnedPython(tt.argv); got != tt.want {
			t.Errorf("pinnedPython(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
