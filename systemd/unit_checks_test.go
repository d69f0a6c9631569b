package systemd

import "testing"

// TestUnderTmp: --harden's PrivateTmp=yes gives the service an empty
// /tmp, so a binary, profile or interpreter there is not found.
func TestUnderTmp(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{{"/tmp/x/sglaunch", true}, {"/var/tmp/p.yaml", true}, {"/tmpfs/x", false}, {"/usr/local/bin/sglaunch", false}, {"built-in", false}} {
		if got := underTmp(tt.path); got != tt.want {
			t.Errorf("underTmp(%q): got %v, want %v", tt.path, got, tt.want)
		}
	}
}
