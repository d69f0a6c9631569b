package test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering holds the "must not" lines of the packages' doc.go files:
// the packages that need only the plan never reach the process code, the
// process code knows nothing of readiness or systemd, and so on.
func TestLayering(t *testing.T) {
	t.Parallel()
	const mod = "github.com/sglaunch/sglaunch/"
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], mod)] = f[1:]
	}
	rules := []struct {
		pkg       string
		forbidden []string
	}{
		{"plan", []string{"launcher", "supervise", "health", "systemd", "verify", "bench", "preflight", "internal/proc", "internal/childproc", "cluster", "group"}},
		// cluster reads the environment only; group talks to other ranks
		// but starts and signals no process.
		{"cluster", []string{"launcher", "supervise", "group", "internal/childproc", "internal/proc", "verify"}},
		{"group", []string{"launcher", "supervise", "internal/childproc", "verify", "health"}},
		{"profiles", []string{"plan", "launcher"}},
		{"catalog", []string{"plan", "launcher"}},
		{"preflight", []string{"launcher", "supervise"}},
		{"verify", []string{"launcher", "supervise", "bench", "internal/leftovers"}},
		{"internal/runstate", []string{"launcher", "supervise"}},
		{"health", []string{"launcher", "supervise"}},
		{"systemd", []string{"launcher", "supervise", "health"}},
		{"launcher", []string{"health", "systemd", "supervise"}},
		{"loadgen", []string{"plan", "launcher", "bench"}},
		{"bench", []string{"supervise"}},
		{"internal/childproc", []string{"plan", "launcher"}},
		{"internal/leftovers", []string{"launcher", "supervise", "bench"}},
		{"internal/logfile", []string{"plan", "launcher"}},
		{"status", []string{"launcher", "supervise", "bench", "internal/childproc", "internal/hostprobe"}},
	}
	for _, r := range rules {
		d, ok := deps[r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, f := range r.forbidden {
			want := mod + f
			for _, dep := range d {
				if dep == want {
					t.Errorf("%s depends on %s, which its doc.go rules out", r.pkg, f)
				}
			}
		}
	}
}
