package test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayering holds the "must not" lines of the packages' doc.go files:
// the packages that need only the plan never reach the process code, the
// process code knows nothing of readiness or systemd, and so on.
func TestLayering(t *testing.T) {
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
		// bench runs workloads against a server launch started for it.
		{"bench", []string{"supervise", "launcher", "launch"}},
		{"internal/childproc", []string{"plan", "launcher"}},
		{"internal/leftovers", []string{"launcher", "supervise", "bench"}},
		{"internal/logfile", []string{"plan", "launcher"}},
		{"status", []string{"launcher", "supervise", "bench", "internal/childproc", "internal/hostprobe"}},
	}
	// Only the command composes a launch.
	for pkg, d := range deps {
		if pkg == "cmd/sglaunch" || pkg == "launch" || strings.HasPrefix(pkg, "test") {
			continue
		}
		for _, dep := range d {
			if dep == mod+"launch" {
				t.Errorf("%s depends on launch, which only cmd/sglaunch may call", pkg)
			}
		}
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

// TestLayeringDirectImports holds the rules on what a package imports
// itself (its dependencies go further down): the command parses flags,
// calls and renders, and composes its launches only through launch;
// launch asks supervise and launcher to run processes and parses no
// flags.
func TestLayeringDirectImports(t *testing.T) {
	const mod = "github.com/sglaunch/sglaunch/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "../cmd/sglaunch", "../launch").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[strings.TrimPrefix(f[0], mod)] = f[1:]
	}
	rules := []struct {
		pkg       string
		forbidden []string
	}{
		{"cmd/sglaunch", []string{mod + "launcher", mod + "health", mod + "supervise", mod + "internal/runstate", mod + "internal/proc", mod + "internal/childproc"}},
		{"launch", []string{"github.com/urfave/cli/v2", mod + "internal/proc", mod + "internal/childproc"}},
	}
	for _, r := range rules {
		got, ok := imports[r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, f := range r.forbidden {
			if slices.Contains(got, f) {
				t.Errorf("%s imports %s, which its doc.go rules out", r.pkg, strings.TrimPrefix(f, mod))
			}
		}
	}
}

// TestCommandLeavesGroupInternals: the command holds no part of a
// group's start (launch.Run holds the rendezvous); it may only read a
// running group (group.ObserveAll) and its types.
func TestCommandLeavesGroupInternals(t *testing.T) {
	internals := []string{"Rendezvous", "Listen", "NewWorker", "CheckLeader", "InterfaceIP", "RankZeroPorts", "ModelFiles"}
	files, err := filepath.Glob("../cmd/sglaunch/*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "group" && slices.Contains(internals, sel.Sel.Name) {
				t.Errorf("%s: cmd/sglaunch calls group.%s; a group's start belongs to launch", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
