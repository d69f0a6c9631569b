package statedir

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
)

// Env is how the package reads the environment (os.Getenv in production).
type Env func(string) string

// State returns the state directory: override when set (SGLAUNCH_STATE_DIR),
// /var/lib/sglaunch for root, else $XDG_STATE_HOME/sglaunch
// (default ~/.local/state/sglaunch).
func State(override string, getenv Env) string {
	if override != "" {
		return override
	}
	if os.Geteuid() == 0 {
		return "/var/lib/sglaunch"
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	return filepath.Join(home(getenv), ".local", "state", "sglaunch")
}

// Runtime returns the directory for runtime state files: override when
// set (SGLAUNCH_RUNTIME_DIR), /run/sglaunch for root, else
// $XDG_RUNTIME_DIR/sglaunch (falling back to the state directory's run/
// when XDG_RUNTIME_DIR is unset).
func Runtime(override, stateOverride string, getenv Env) string {
	if override != "" {
		return override
	}
	if os.Geteuid() == 0 {
		return "/run/sglaunch"
	}
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	return filepath.Join(State(stateOverride, getenv), "run")
}

// Cache returns the cache directory: $XDG_CACHE_HOME/sglaunch (default
// ~/.cache/sglaunch), /var/cache/sglaunch for root.
func Cache(getenv Env) string {
	if os.Geteuid() == 0 {
		return "/var/cache/sglaunch"
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	return filepath.Join(home(getenv), ".cache", "sglaunch")
}

// home is $HOME, else the user's home from the password database, else
// a directory of the user's own under the shared temporary directory
// (which Private checks before anything uses it).
func home(getenv Env) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" && u.HomeDir != "/" {
		return u.HomeDir
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("sglaunch-%d", os.Geteuid()))
}
