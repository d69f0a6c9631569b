package selfexe

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Path is the binary a unit's ExecStart= or a job script runs
// (command names which): this one, symlinks resolved, unless it is a
// temporary build that will be gone when the service or job starts (B8).
func Path(command string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the sglaunch binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if temporaryBuild(exe) {
		runner := "service"
		if command != "unit" {
			runner = "job"
		}
		return "", inputerr.Errorf("%s: this sglaunch is a `go run` build (%s), a temporary file (deleted when go run exits, or by the build cache's trimming) that the %s could not rely on; "+
			"install it first (go build -o /usr/local/bin/sglaunch ./cmd/sglaunch) and run that binary's %s command", command, exe, runner, command)
	}
	return exe, nil
}

// temporaryBuild reports a binary go run built: .../go-buildNNN/bNNN/exe/NAME
// under the temporary directory (or GOTMPDIR), or, since Go 1.24, the
// copy go run keeps in the build cache (GOCACHE/xx/<sha256>-d/NAME),
// which `go clean -cache` and the cache's own trimming delete.
func temporaryBuild(exe string) bool {
	parts := strings.Split(filepath.ToSlash(exe), "/")
	n := len(parts)
	if n >= 3 && cachedRunRE.MatchString(parts[n-2]) && len(parts[n-3]) == 2 && strings.HasPrefix(parts[n-2], parts[n-3]) {
		return true
	}
	for i, p := range parts {
		if strings.HasPrefix(p, "go-build") && i+3 < n && parts[n-2] == "exe" {
			return true
		}
	}
	return false
}

// cachedRunRE is the directory go run's cached executable sits in.
var cachedRunRE = regexp.MustCompile(`^[0-9a-f]{64}-d$`)
