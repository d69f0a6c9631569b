package perf

// Preflight wall time through the real binary:
//
//	go test ./test/perf -run '^$' -bench Preflight -benchtime 20x

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// The preflight benchmarks build their own binary, so that they stand
// apart from the other benchmarks of this directory.
var (
	pfOnce sync.Once
	pfBin  string
	pfErr  error
)

func preflightBinary(b *testing.B) string {
	b.Helper()
	pfOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sglaunch-perf-preflight-")
		if err != nil {
			pfErr = err
			return
		}
		pfBin, pfErr = testkit.BuildSglaunch(dir)
	})
	if pfErr != nil {
		b.Fatal(pfErr)
	}
	return pfBin
}

// preflight runs `sglaunch preflight --profile demo` with a state
// directory (and more --set values), and fails the benchmark unless it
// exits 0.
func preflight(b *testing.B, home, state string, port int, set ...string) {
	args := []string{"preflight", "--profile", "demo", "--set", "args.port=" + strconv.Itoa(port)}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(preflightBinary(b), args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"SGLAUNCH_STATE_DIR=" + state,
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("preflight: %v\n%s", err, out)
	}
}

// BenchmarkPreflightDemoCold is the first preflight for an SGLang version:
// no cached flag list, so python3 runs the probe and --help (concurrently)
// and the package sources are scanned.
func BenchmarkPreflightDemoCold(b *testing.B) {
	home, port := b.TempDir(), testkit.FreePort(b)
	preflight(b, home, b.TempDir(), port) // unpacks the simulator once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		state := b.TempDir()
		b.StartTimer()
		preflight(b, home, state, port)
	}
}

// BenchmarkPreflightDemoCached is every later preflight: one python3 probe,
// the flag list read from the state directory. Target: under 2 s.
func BenchmarkPreflightDemoCached(b *testing.B) {
	home, state, port := b.TempDir(), b.TempDir(), testkit.FreePort(b)
	preflight(b, home, state, port)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		preflight(b, home, state, port)
	}
}
