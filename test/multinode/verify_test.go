//go:build linux

package multinode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerifyGroupMatches(t *testing.T) {
	g := newGroup(t, 2, "")
	g.startAll(g.lwsEnv)
	g.waitReady()
	code, out := g.ranks[0].run(t, "verify", "--group", "--profile", g.profile)
	if code != 0 {
		t.Fatalf("verify --group exited %d:\n%s", code, out)
	}
	for _, want := range []string{"rank 1:", "on all 2 ranks"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify --group output lacks %q:\n%s", want, out)
		}
	}
	// On a worker's host it says where to run it.
	if code, out := g.ranks[1].run(t, "verify", "--group", "--profile", g.profile); code != 2 || !strings.Contains(out, "run it on rank 0's host") {
		t.Errorf("verify --group on rank 1: exit %d:\n%s", code, out)
	}
}

// TestVerifyGroupNamesDriftedRank: a usercustomize on rank 1's host
// only (allowed there with --allow-site-overrides) changes NCCL_ALGO in
// its server: the plans match, so the group loads, and verify --group
// finds the drift on rank 1 alone.
func TestVerifyGroupNamesDriftedRank(t *testing.T) {
	g := newGroup(t, 2, "")
	g.prepare = func(i int, home string) {
		if i != 1 {
			return
		}
		cmd := exec.Command(g.python, "-c", "import site; print(site.getusersitepackages())")
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		dir := strings.TrimSpace(string(out))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "usercustomize.py"), []byte("import os\nos.environ['NCCL_ALGO'] = 'Tree'\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g.start(0, g.lwsEnv(0))
	g.start(1, g.lwsEnv(1), "--allow-site-overrides")
	g.waitReady()
	code, out := g.ranks[0].run(t, "verify", "--group", "--profile", g.profile)
	t.Logf("verify --group:\n%s", out)
	if code != 1 {
		t.Fatalf("verify --group exited %d, want 1 (drift):\n%s", code, out)
	}
	var drift []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "NCCL_ALGO") && strings.Contains(l, "DIFFERENT") {
			drift = append(drift, l)
		}
	}
	if len(drift) == 0 || !strings.HasPrefix(drift[0], "1 ") {
		t.Errorf("no NCCL_ALGO drift row for rank 1:\n%s", out)
	}
	for _, l := range drift {
		if strings.HasPrefix(l, "0 ") {
			t.Errorf("rank 0 has a drift row it does not have: %s", l)
		}
	}
	// diff --group compares the profile with every rank.
	code, out = g.ranks[0].run(t, "diff", "--group", "profile:"+g.profile, "running")
	t.Logf("diff --group:\n%s", out)
	if code != 1 || !strings.Contains(out, "rank 1 on") || !strings.Contains(out, "NCCL_ALGO") {
		t.Errorf("diff --group exited %d, want 1 naming rank 1's NCCL_ALGO:\n%s", code, out)
	}
	code, out = g.ranks[0].run(t, "diff", "--group", "--json", "profile:"+g.profile, "running")
	var doc struct {
		Ranks []struct {
			Rank        int `json:"rank"`
			Differences []struct {
				Group, Setting string
			} `json:"differences"`
		} `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &doc); err != nil || code != 1 || len(doc.Ranks) != 2 {
		t.Fatalf("diff --group --json: exit %d, %v:\n%s", code, err, out)
	}
	found := false
	for _, d := range doc.Ranks[1].Differences {
		found = found || (d.Setting == "NCCL_ALGO" && d.Group == "perf-relevant")
	}
	if doc.Ranks[1].Rank != 1 || !found {
		t.Errorf("diff --group --json: rank 1's NCCL_ALGO not in %+v", doc.Ranks[1])
	}
}
