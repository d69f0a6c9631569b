//go:build linux

package multinode

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// multinodeDoc is the user's recipe for a group secret outside Slurm
// and LWS; these tests run its commands as written.
const multinodeDoc = "../../docs/multinode.md"

// docRecipe is what docs/multinode.md's "Static hosts and SkyPilot"
// section tells a user to run.
type docRecipe struct {
	generate  string // the shell line that makes group.secret
	mountTo   string // SkyPilot file_mounts: the remote path (with ~)
	mountFrom string // and the local file
	setup     string // SkyPilot setup
	run       []string
}

// readRecipe reads the recipe from the doc: the line that starts with
// "(umask 077", and the SkyPilot task block (the yaml block holding
// file_mounts).
func readRecipe(t *testing.T) docRecipe {
	t.Helper()
	b, err := os.ReadFile(multinodeDoc)
	if err != nil {
		t.Fatal(err)
	}
	var r docRecipe
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "(umask 077") {
			r.generate = l
		}
		if l != "file_mounts:" {
			continue
		}
		k, v, _ := strings.Cut(strings.TrimSpace(lines[i+1]), ": ")
		r.mountTo, r.mountFrom = k, v
		section := ""
		for _, l := range lines[i+2:] {
			if strings.HasPrefix(l, "```") {
				break
			}
			switch {
			case l == "setup: |":
				section = "setup"
			case l == "run: |":
				section = "run"
			case section == "setup":
				r.setup += strings.TrimSpace(l) + "\n"
			case section == "run":
				r.run = append(r.run, strings.TrimSpace(l))
			}
		}
	}
	if r.generate == "" || r.mountTo == "" || r.setup == "" || len(r.run) == 0 {
		t.Fatalf("%s holds no whole recipe: %+v", multinodeDoc, r)
	}
	return r
}

// makeSecret runs the doc's command in a new directory and returns the
// file it made, checked: 0600, 64 hex digits.
func makeSecret(t *testing.T, r docRecipe) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", r.generate)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", r.generate, err, out)
	}
	path := filepath.Join(dir, "group.secret")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s made no group.secret: %v", r.generate, err)
	}
	b, _ := os.ReadFile(path)
	if st.Mode().Perm() != 0o600 || len(b) != 64 || strings.Trim(string(b), "0123456789abcdef") != "" {
		t.Fatalf("%s made mode %04o and %q, want 0600 and 64 hex digits", r.generate, st.Mode().Perm(), b)
	}
	return path
}

// withoutSecretVar drops the harness's SGLAUNCH_GROUP_SECRET: these
// ranks find theirs in a file.
func withoutSecretVar(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SGLAUNCH_GROUP_SECRET=") {
			out = append(out, kv)
		}
	}
	return out
}

// stopGroup stops rank 0 and expects every rank to exit 0.
func (g *group) stopGroup() {
	g.t.Helper()
	_ = syscall.Kill(g.ranks[0].pid, syscall.SIGTERM)
	for _, r := range g.ranks {
		if code := r.wait(g.t); code != 0 {
			g.t.Errorf("rank %d exited %d after the stop, want 0:\n%s", r.i, code, r.stderr.String())
		}
	}
}

// TestStaticSecretFile: static placement with the doc's secret file,
// one path on every node, named by multinode.secret_file: the group
// forms authenticated and stops cleanly.
func TestStaticSecretFile(t *testing.T) {
	r := readRecipe(t)
	secret := makeSecret(t, r)
	g := newGroup(t, 2, fmt.Sprintf("  orchestrator: static\n  secret_file: %s\n", secret))
	g.env = func(_ int, env []string) []string { return withoutSecretVar(env) }
	head := g.c.Nodes[0].IP
	for i := range g.c.Nodes {
		g.start(i, nil, "--set", fmt.Sprintf("args.node-rank=%d", i), "--set", fmt.Sprintf("args.dist-init-addr=%s:20000", head))
	}
	g.waitReady()
	for _, rk := range g.ranks {
		want := "authenticated with the secret of multinode.secret_file " + secret
		if !strings.Contains(rk.stderr.String(), want) {
			t.Errorf("rank %d does not say %q:\n%s", rk.i, want, rk.stderr.String())
		}
	}
	g.stopGroup()
}

// TestSkyPilotSecretFile: SkyPilot placement with the doc's task: the
// file copied to each node's home as file_mounts would (mode 0644, as
// an upload may leave it), the doc's setup, and its run's export of
// SGLAUNCH_GROUP_SECRET_FILE. Without the setup's chmod the rank
// refuses the file (exit 2, naming the chmod); with it the group forms
// authenticated.
func TestSkyPilotSecretFile(t *testing.T) {
	r := readRecipe(t)
	secret := makeSecret(t, r)
	data, err := os.ReadFile(secret)
	if err != nil {
		t.Fatal(err)
	}
	if r.mountFrom != "./"+filepath.Base(secret) {
		t.Fatalf("the doc's file_mounts copies %s, not the file its command makes (%s)", r.mountFrom, filepath.Base(secret))
	}
	// mount copies the file to a node's home as file_mounts does; when
	// setup is true it runs the doc's setup there. It returns the
	// variables the doc's run exports.
	mount := func(home string, setup bool) []string {
		dst := filepath.Join(home, strings.TrimPrefix(r.mountTo, "~/"))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dst, 0o644); err != nil {
			t.Fatal(err)
		}
		if setup {
			bash(t, home, r.setup)
		}
		var exports []string
		for _, l := range r.run {
			if strings.HasPrefix(l, "export ") {
				exports = append(exports, l)
			}
		}
		kv := strings.TrimSpace(bash(t, home, strings.Join(exports, "\n")+"\nprintf '%s' \"SGLAUNCH_GROUP_SECRET_FILE=$SGLAUNCH_GROUP_SECRET_FILE\""))
		if kv != "SGLAUNCH_GROUP_SECRET_FILE="+dst {
			t.Fatalf("the doc's run exports %q, want the mounted file %s", kv, dst)
		}
		return []string{kv}
	}

	t.Run("without setup", func(t *testing.T) {
		g := newGroup(t, 2, "")
		var exports []string
		g.prepare = func(_ int, home string) { exports = mount(home, false) }
		g.env = func(_ int, env []string) []string { return append(withoutSecretVar(env), exports...) }
		rk := g.start(1, g.skypilotEnv(1))
		if code := rk.wait(t); code != 2 || !strings.Contains(rk.stderr.String(), "chmod o-r") {
			t.Errorf("a world-readable secret file: exit %d, want 2 naming the chmod:\n%s", code, rk.stderr.String())
		}
	})
	t.Run("as documented", func(t *testing.T) {
		g := newGroup(t, 2, "")
		exports := map[int][]string{}
		g.prepare = func(i int, home string) { exports[i] = mount(home, true) }
		g.env = func(i int, env []string) []string { return append(withoutSecretVar(env), exports[i]...) }
		g.startAll(g.skypilotEnv)
		g.waitReady()
		for _, rk := range g.ranks {
			want := "authenticated with the secret of SGLAUNCH_GROUP_SECRET_FILE " + rk.dir
			if !strings.Contains(rk.stderr.String(), want) {
				t.Errorf("rank %d does not say %q:\n%s", rk.i, want, rk.stderr.String())
			}
		}
		g.stopGroup()
	})
}

// bash runs script with HOME=home and returns its stdout.
func bash(t *testing.T, home, script string) string {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), "bash", "-ec", script)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash -ec %q: %v", script, err)
	}
	return string(out)
}
