package statedir

import (
	"os"
	"testing"
)

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

// TestSystemdDirectories pins B7: a unit with StateDirectory=,
// CacheDirectory= and RuntimeDirectory= runs sglaunch as a system
// account whose home is /nonexistent; sglaunch failed at once with
// "mkdir /nonexistent: permission denied" because it ignored the
// directories systemd had made for it.
func TestSystemdDirectories(t *testing.T) {
	env := envOf(map[string]string{
		"HOME":              "/nonexistent",
		"STATE_DIRECTORY":   "/var/lib/sglaunch:/var/lib/other",
		"CACHE_DIRECTORY":   "/var/cache/sglaunch",
		"RUNTIME_DIRECTORY": "/run/sglaunch",
	})
	tests := []struct{ name, got, want string }{
		{"state", State("", env), "/var/lib/sglaunch"},
		{"state override wins", State("/srv/state", env), "/srv/state"},
		{"cache", Cache(env), "/var/cache/sglaunch"},
		{"runtime", Runtime("", "", env), "/run/sglaunch"},
		{"runtime override wins", Runtime("/srv/run", "", env), "/srv/run"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestWithoutSystemdDirectories(t *testing.T) {
	if os.Geteuid() == 0 {
		env := envOf(map[string]string{"STATE_DIRECTORY": "relative"})
		if got := State("", env); got != "/var/lib/sglaunch" {
			t.Errorf("root: got %q, want /var/lib/sglaunch (a relative STATE_DIRECTORY is not systemd's)", got)
		}
		return
	}
	env := envOf(map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/x/state"})
	if got := State("", env); got != "/x/state/sglaunch" {
		t.Errorf("got %q, want /x/state/sglaunch", got)
	}
	if got := Cache(env); got != "/home/u/.cache/sglaunch" {
		t.Errorf("got %q, want /home/u/.cache/sglaunch", got)
	}
}
