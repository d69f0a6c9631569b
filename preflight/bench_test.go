package preflight

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/profiles"
	"github.com/sglaunch/sglaunch/sim"
)

// demoPlan resolves the demo profile against a freshly unpacked simulator.
func demoPlan(b *testing.B) *launcher.Plan {
	b.Helper()
	dir := b.TempDir()
	if err := sim.Unpack(dir, catalog.SGLangArgsJSON()); err != nil {
		b.Fatal(err)
	}
	p, err := (&profiles.Finder{}).Load("demo")
	if err != nil {
		b.Fatal(err)
	}
	plan, err := launcher.Resolve(launcher.Request{
		Profile: p, Mode: launcher.ModeServe, Environ: os.Environ(),
		Sets:   []string{"args.port=" + strconv.Itoa(testkit.FreePort(b))},
		SimDir: func() (string, error) { return dir, nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	return plan
}

// BenchmarkRunDemoCold is preflight.Run in-process with no cache: the
// probe and --help run concurrently, then the sources are scanned.
func BenchmarkRunDemoCold(b *testing.B) {
	plan := demoPlan(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		state := b.TempDir()
		b.StartTimer()
		if r := Run(context.Background(), plan, Options{StateDir: state}); r.Failed() || r.SGLang.Flags != "--help" {
			b.Fatalf("cold run: %+v", r.SGLang)
		}
	}
}

// BenchmarkRunDemoCached is preflight.Run in-process with the flag list
// cached: one probe.
func BenchmarkRunDemoCached(b *testing.B) {
	plan := demoPlan(b)
	state := b.TempDir()
	Run(context.Background(), plan, Options{StateDir: state})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Run(context.Background(), plan, Options{StateDir: state}); r.Failed() || r.SGLang.Flags != "--help (cached)" {
			b.Fatalf("cached run: %+v", r.SGLang)
		}
	}
}
