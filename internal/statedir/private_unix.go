//go:build unix

package statedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// ErrUnsafe is a directory another user could write to or own: sglaunch
// will not run code from it or keep its state there.
var ErrUnsafe = errors.New("unsafe directory")

// Private makes dir, with missing parents, 0700 and checks that nobody
// else can change what it holds: dir is a directory owned by the
// effective user (a wider mode is tightened to 0700), and every directory
// above it is owned by that user or root and writable by nobody else
// unless sticky (like /tmp). Symbolic links are followed first. Anything
// else is an input error wrapping ErrUnsafe that names the directory and
// the fix.
func Private(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", abs, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("directory %s: %w", abs, err)
	}
	euid := uint32(os.Geteuid())
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("directory %s: %w", p, err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		switch {
		case st.Uid != euid && st.Uid != 0:
			return unsafe(real, fmt.Sprintf("%s above it belongs to uid %d", p, st.Uid))
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return unsafe(real, fmt.Sprintf("%s above it is writable by others (mode %04o, not sticky)", p, fi.Mode().Perm()))
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	return ownDir(real, euid, true)
}

// Owned checks that dir, which must exist, is a directory (not a link)
// owned by the effective user and writable by nobody else.
func Owned(dir string) error { return ownDir(dir, uint32(os.Geteuid()), false) }

func ownDir(dir string, euid uint32, tighten bool) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return unsafe(dir, "it is not a directory ("+fi.Mode().Type().String()+")")
	case st.Uid != euid:
		return unsafe(dir, fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", st.Uid, euid))
	case fi.Mode().Perm() != 0o700 && tighten:
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	case fi.Mode().Perm()&0o022 != 0:
		return unsafe(dir, fmt.Sprintf("it is writable by others (mode %04o)", fi.Mode().Perm()))
	}
	return nil
}

func unsafe(dir, why string) error {
	return inputerr.Errorf("%w %s: %s; remove it, or set XDG_CACHE_HOME (or HOME) to a directory of your own", ErrUnsafe, dir, why)
}
