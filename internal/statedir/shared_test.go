package statedir

import "testing"

// TestSharedBesideUnitDirectory: units of different accounts shared
// /var/lib/sglaunch, /var/cache/sglaunch and /run/sglaunch, and systemd
// re-owned them for each unit's User= in turn. Each unit now has its own
// directory below the host's (StateDirectory=sglaunch/UNIT); Shared
// names the host's, whose records the operator's bench wrote.
func TestSharedBesideUnitDirectory(t *testing.T) {
	tests := []struct {
		name, override, state, want string
	}{
		{"a unit's own directory", "", "/var/lib/sglaunch-sglang-kimi", "/var/lib/sglaunch"},
		{"several entries: the first", "", "/var/lib/sglaunch-sglang-kimi:/var/lib/other", "/var/lib/sglaunch"},
		{"a root unit's: the host's itself", "", "/var/lib/sglaunch", ""},
		{"another layout", "", "/srv/state/x", ""},
		{"no systemd", "", "", ""},
		{"an override wins", "/srv/mine", "/var/lib/sglaunch-sglang-kimi", ""},
	}
	for _, tt := range tests {
		got := Shared(tt.override, envOf(map[string]string{"STATE_DIRECTORY": tt.state}))
		if got != tt.want {
			t.Errorf("%s: Shared = %q, want %q", tt.name, got, tt.want)
		}
	}
}
