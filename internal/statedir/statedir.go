package statedir

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// Env is how the package reads the environment (os.Getenv in production).
type Env func(string) string

// State returns the state directory: override when set (SGLAUNCH_STATE_DIR),
// else $STATE_DIRECTORY (systemd's StateDirectory=), /var/lib/sglaunch for
// root, else $XDG_STATE_HOME/sglaunch (default ~/.local/state/sglaunch).
func State(override string, getenv Env) string {
	if override != "" {
		return override
	}
	if d := systemdDir(getenv, "STATE_DIRECTORY"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/var/lib/sglaunch"
	}
	if x := getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	return filepath.Join(home(getenv), ".local", "state", "sglaunch")
}

// Shared is the host's shared state directory when the state directory
// is a systemd unit's own beside it ($STATE_DIRECTORY is
// /var/lib/sglaunch-UNIT, as `sglaunch unit --user U` writes
// StateDirectory=): the operator's bench records live there. "" otherwise.
func Shared(override string, getenv Env) string {
	if override != "" {
		return ""
	}
	d := systemdDir(getenv, "STATE_DIRECTORY")
	if d == "" {
		return ""
	}
	d = filepath.Clean(d)
	if !strings.HasPrefix(filepath.Base(d), UnitDirPrefix) {
		return ""
	}
	return filepath.Join(filepath.Dir(d), "sglaunch")
}

// UnitDirPrefix starts the name of a unit's own directory beside the
// host's sglaunch directory (sglaunch-UNIT).
const UnitDirPrefix = "sglaunch-"

// Runtime returns the directory for runtime state files: override when
// set (SGLAUNCH_RUNTIME_DIR), else $RUNTIME_DIRECTORY (systemd's
// RuntimeDirectory=), /run/sglaunch for root, else
// $XDG_RUNTIME_DIR/sglaunch (falling back to the state directory's run/
// when XDG_RUNTIME_DIR is unset).
func Runtime(override, stateOverride string, getenv Env) string {
	if override != "" {
		return override
	}
	if d := systemdDir(getenv, "RUNTIME_DIRECTORY"); d != "" {
		return d
	}
	if os.Geteuid() == 0 {
		return "/run/sglaunch"
	}
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	return filepath.Join(State(stateOverride, getenv), "run")
}

// Cache returns the cache directory: $CACHE_DIRECTORY (systemd's
// CacheDirectory=), /var/cache/sglaunch for root, else
// $XDG_CACHE_HOME/sglaunch (default ~/.cache/sglaunch).
func Cache(getenv Env) string {
	if d := systemdDir(getenv, "CACHE_DIRECTORY"); d != "" {
		return d
	}
	// An explicit XDG_CACHE_HOME wins for root too: it is how root uses a
	// cache of its own where /var/cache/sglaunch belongs to a service's
	// account (which Private refuses for root).
	if x := getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "sglaunch")
	}
	if os.Geteuid() == 0 {
		return "/var/cache/sglaunch"
	}
	return filepath.Join(home(getenv), ".cache", "sglaunch")
}

// systemdDir is the directory systemd made for the unit and named in
// variable (STATE_DIRECTORY and friends): the first of a colon-separated
// list, as a unit with several StateDirectory= entries gets it. It is
// the unit's own directory already (/var/lib/sglaunch/UNIT), not a parent.
// A system account whose home is /nonexistent has nowhere else to write.
func systemdDir(getenv Env, variable string) string {
	first, _, _ := strings.Cut(getenv(variable), ":")
	if !filepath.IsAbs(first) {
		return ""
	}
	return first
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
