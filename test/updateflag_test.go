package test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestEveryTestBinaryAcceptsUpdate: go test ./... -update passes -update
// to every test binary, and one without the flag fails the whole run
// (internal/childproc's did). testkit registers the flag, so every
// package with tests must import it from one of its test files.
func TestEveryTestBinaryAcceptsUpdate(t *testing.T) {
	t.Parallel()
	const testkit = "github.com/sglaunch/sglaunch/internal/testkit"
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] == testkit || f[1] == "0" && f[2] == "0" {
			continue
		}
		if !slices.Contains(f[3:], testkit) {
			t.Errorf("%s: no test file imports internal/testkit, so its test binary refuses -update", f[0])
		}
	}
}
