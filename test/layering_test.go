package test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayering holds the "must not" lines of the packages' doc.go files:
// the packages that need only the plan never reach the process code, the
// process code knows nothing of readiness or systemd, and so on.
func TestLayering(t *testing.T) {
	const mod = "github.com/sglaunch/sglaunch/"
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}|{{join .Deps " "}}|{{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// deps are every package a package depends on, imports its own files'.
	deps, imports := map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		pkg := strings.TrimPrefix(f[0], mod)
		deps[pkg], imports[pkg] = strings.Fields(f[1]), strings.Fields(f[2])
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
		// bench/workload says what to run; it knows no plan, record or
		// process.
		{"bench/workload", []string{"bench", "bench/report", "plan", "launcher", "supervise", "health", "internal/childproc", "internal/hostprobe", "internal/proc"}},
		{"bench/report", []string{"supervise"}},
		{"internal/childproc", []string{"plan", "launcher"}},
		{"internal/leftovers", []string{"launcher", "supervise", "bench"}},
		{"internal/logfile", []string{"plan", "launcher"}},
		{"status", []string{"launcher", "supervise", "bench", "internal/childproc", "internal/hostprobe"}},
	}
	// check reports each forbidden package that pkg reaches in graph.
	check := func(graph map[string][]string, pkg string, forbidden []string, verb string) {
		d, ok := graph[pkg]
		if !ok {
			t.Errorf("package %s not found", pkg)
			return
		}
		for _, f := range forbidden {
			if slices.Contains(d, mod+f) {
				t.Errorf("%s %s %s, which its doc.go rules out", pkg, verb, f)
			}
		}
	}
	for _, r := range rules {
		check(deps, r.pkg, r.forbidden, "depends on")
	}
	// Rules on a package's own imports, where what it depends on through
	// another package cannot be ruled out: bench/report reads records
	// through bench, which runs benchmarks.
	direct := []struct {
		pkg       string
		forbidden []string
	}{
		{"bench/report", []string{"launcher", "supervise", "health", "internal/childproc", "internal/hostprobe", "internal/sglangapi", "internal/proc"}},
		// tune searches; the command hands it the launch and the resolver.
		{"tune", []string{"supervise", "profiles", "systemd", "internal/childproc", "internal/sglangapi", "internal/proc", "loadgen"}},
	}
	for _, r := range direct {
		check(imports, r.pkg, r.forbidden, "imports")
	}
	// bench/benchtest builds records for tests only.
	for pkg, d := range deps {
		if slices.Contains(d, mod+"bench/benchtest") {
			t.Errorf("%s depends on bench/benchtest, which is for tests only", pkg)
		}
	}
}
