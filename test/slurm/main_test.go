package slurm

import (
	"os"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// sglaunchBin is the binary the multi-node tests run on every node,
// built once; sharedCache holds one unpacked simulator for all of them.
var sglaunchBin, sharedCache string

func TestMain(m *testing.M) {
	os.Exit(testkit.RunWithWorkspace(m, "sglaunch-slurm-bin-", func(w *testkit.Workspace) error {
		sglaunchBin, sharedCache = w.Bin, w.Cache
		return nil
	}))
}
