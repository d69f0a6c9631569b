package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Workspace is what an end-to-end test package shares across its tests:
// sglaunch built once, and one cache for the unpacked simulator.
type Workspace struct {
	Dir   string // removed by Close
	Bin   string // the sglaunch binary
	Cache string // XDG_CACHE_HOME for every sglaunch the tests run
}

// NewWorkspace builds sglaunch into a new temporary directory named
// after prefix.
func NewWorkspace(prefix string) (*Workspace, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	bin, err := BuildSglaunch(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Workspace{Dir: dir, Bin: bin, Cache: filepath.Join(dir, "cache")}, nil
}

// Close removes the workspace.
func (w *Workspace) Close() { os.RemoveAll(w.Dir) }

// RunWithWorkspace is a TestMain's body: it makes the workspace, hands
// it to setup (which keeps what it needs and may fail), runs the tests
// and removes the workspace. It returns the exit status for os.Exit.
func RunWithWorkspace(m *testing.M, prefix string, setup func(*Workspace) error) int {
	w, err := NewWorkspace(prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer w.Close()
	if setup != nil {
		if err := setup(w); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}
