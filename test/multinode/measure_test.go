//go:build linux

package multinode

import (
	"os"
	"regexp"
	"testing"
)

var preflightTook = regexp.MustCompile(`group preflight passed: \d+ ranks run one plan \(fingerprint \w+\) in (\S+);`)

// TestGroupPreflightStartupCost measures, on rank 0, how long the group's
// preflight held the load: from rank 0's control channel opening to
// every rank told to load, with every rank started at once (so it holds
// each worker's own start-up and preflight too: an upper bound on the
// extra start-up time). Eight nodes run only with SGLAUNCH_MULTINODE_FULL=1.
func TestGroupPreflightStartupCost(t *testing.T) {
	sizes := []int{2}
	if os.Getenv("SGLAUNCH_MULTINODE_FULL") != "" {
		sizes = append(sizes, 8)
	}
	for _, n := range sizes {
		g := newGroup(t, n, "")
		g.startAll(g.lwsEnv)
		g.waitReady()
		m := preflightTook.FindStringSubmatch(g.ranks[0].stderr.String())
		if m == nil {
			t.Fatalf("%d ranks: rank 0 did not say how long the group preflight took:\n%s", n, g.ranks[0].stderr.String())
		}
		t.Logf("%d ranks: the group preflight passed in %s on rank 0", n, m[1])
		for _, r := range g.ranks {
			r.node.Kill()
		}
	}
}
