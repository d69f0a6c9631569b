package slurm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// sglaunchBin is the binary the multi-node tests run on every node,
// built once; sharedCache holds one unpacked simulator for all of them.
var sglaunchBin, sharedCache string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sglaunch-slurm-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	sharedCache = filepath.Join(dir, "cache")
	if sglaunchBin, err = testkit.BuildSglaunch(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
