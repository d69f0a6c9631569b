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
	t.Parallel()
	deps := goList(t, "Deps", "../...")
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
		{"preflight", []string{"launcher", "supervise", "verify"}},
		{"verify", []string{"launcher", "supervise", "bench", "internal/leftovers"}},
		{"internal/runstate", []string{"launcher", "supervise"}},
		{"health", []string{"launcher", "supervise"}},
		{"systemd", []string{"launcher", "supervise", "health"}},
		{"launcher", []string{"health", "systemd", "supervise"}},
		{"loadgen", []string{"plan", "launcher", "bench"}},
		// bench runs workloads against a server launch started for it.
		{"bench", []string{"supervise", "launcher", "launch"}},
		// bench/workload says what to run; it knows no plan, record or
		// process.
		{"bench/workload", []string{"bench", "bench/report", "plan", "launcher", "supervise", "health", "internal/childproc", "internal/hostprobe", "internal/proc"}},
		{"bench/report", []string{"supervise", "launcher", "launch"}},
		{"internal/childproc", []string{"plan", "launcher"}},
		{"internal/leftovers", []string{"launcher", "supervise", "bench"}},
		{"internal/logfile", []string{"plan", "launcher"}},
		{"status", []string{"launcher", "supervise", "bench", "internal/childproc", "internal/hostprobe"}},
		// Small shared pieces: they serve every layer and know none.
		{"internal/tail", []string{"plan", "launcher", "internal/childproc"}},
		{"internal/statefile", []string{"plan", "launcher", "internal/statedir"}},
		{"internal/jsonout", []string{"plan", "launcher", "internal/redact"}},
		// internal/pyvalue reads strings as Python would; it knows no
		// flag, plan or process.
		{"internal/pyvalue", []string{"catalog", "plan", "profiles", "launcher"}},
		// internal/cliflow arranges and answers command lines; it knows
		// no command of sglaunch's and resolves or runs nothing.
		// internal/selfexe names the binary a unit or job runs; it
		// renders and runs nothing.
		{"internal/selfexe", []string{"plan", "systemd", "cluster", "launcher", "internal/childproc"}},
		// preflight/sglanghelp reads the text of SGLang's --help; it
		// runs nothing and judges no plan.
		{"preflight/sglanghelp", []string{"preflight", "plan", "profiles", "internal/childproc", "internal/hostprobe", "launcher"}},
		{"internal/cliflow", []string{"plan", "profiles", "launch", "launcher", "supervise", "bench", "verify", "preflight", "systemd", "cluster", "status"}},
	}
	// Only the command composes a launch.
	for pkg, d := range deps {
		if pkg == "cmd/sglaunch" || pkg == "launch" || strings.HasPrefix(pkg, "test") {
			continue
		}
		for _, dep := range d {
			if dep == "launch" {
				t.Errorf("%s depends on launch, which only cmd/sglaunch may call", pkg)
			}
		}
	}
	// bench/benchtest builds records for tests only.
	for pkg, d := range deps {
		if slices.Contains(d, "bench/benchtest") {
			t.Errorf("%s depends on bench/benchtest, which is for tests only", pkg)
		}
	}
	checkRules(t, deps, rules, "depends on")
}

// TestLayeringDirectImports holds the rules on what a package imports
// itself (its dependencies go further down): the command parses flags,
// calls and renders, and composes its launches only through launch;
// launch asks supervise and launcher to run processes and parses no
// flags.
func TestLayeringDirectImports(t *testing.T) {
	t.Parallel()
	imports := goList(t, "Imports", "../cmd/sglaunch", "../launch", "../bench/report", "../tune")
	rules := []layerRule{
		// bench/report reads records through bench, which runs
		// benchmarks; it renders, and runs or probes nothing itself.
		{"bench/report", []string{"internal/childproc", "internal/hostprobe", "internal/sglangapi", "internal/proc"}},
		// tune searches; the command hands it the launch and the resolver.
		// Its record is a state file: written and read through
		// internal/statefile, never by hand with atomicfile.
		{"tune", []string{"supervise", "profiles", "systemd", "internal/childproc", "internal/sglangapi", "internal/proc", "loadgen", "internal/atomicfile"}},
		{"cmd/sglaunch", []string{"launcher", "health", "supervise", "internal/runstate", "internal/proc", "internal/childproc"}},
		{"launch", []string{"github.com/urfave/cli/v2", "internal/proc", "internal/childproc"}},
	}
	checkRules(t, imports, rules, "imports")
}

// module is the prefix goList trims from the module's packages.
const module = "github.com/sglaunch/sglaunch/"

// layerRule is a package and what it must not reach.
type layerRule = struct {
	pkg       string
	forbidden []string
}

// goList maps each package of patterns to its list field (Deps or
// Imports), the module's prefix trimmed from every path.
func goList(t *testing.T, field string, patterns ...string) map[string][]string {
	t.Helper()
	format := "{{.ImportPath}}{{range ." + field + "}} {{.}}{{end}}"
	out, err := exec.Command("go", append([]string{"list", "-f", format}, patterns...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for i := range f {
			f[i] = strings.TrimPrefix(f[i], module)
		}
		m[f[0]] = f[1:]
	}
	return m
}

// checkRules fails the test for every forbidden package a rule's
// package reaches through edges.
func checkRules(t *testing.T, edges map[string][]string, rules []layerRule, verb string) {
	t.Helper()
	for _, r := range rules {
		got, ok := edges[r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, f := range r.forbidden {
			if slices.Contains(got, f) {
				t.Errorf("%s %s %s, which its doc.go rules out", r.pkg, verb, f)
			}
		}
	}
}

// TestCommandLeavesGroupInternals: the command holds no part of a
// group's start (launch.Run holds the rendezvous); it may only read a
// running group (group.ObserveAll) and its types.
func TestCommandLeavesGroupInternals(t *testing.T) {
	t.Parallel()
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
