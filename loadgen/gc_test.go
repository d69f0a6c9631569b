package loadgen

import (
	"os"
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestLowerGC: a level runs at gcPercentDuringLoad, unless GOGC is set,
// and the target before it comes back.
func TestLowerGC(t *testing.T) {
	before := debug.SetGCPercent(80)
	defer debug.SetGCPercent(before)
	for _, c := range []struct {
		name   string
		gogc   string // "" unsets GOGC
		during int
	}{
		{"GOGC unset", "", gcPercentDuringLoad},
		{"GOGC set", "80", 80},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOGC", c.gogc)
			if c.gogc == "" {
				os.Unsetenv("GOGC")
			}
			restore := lowerGC()
			if got := gcPercent(); got != c.during {
				t.Errorf("during the load: GC percent %d, want %d", got, c.during)
			}
			restore()
			if got := gcPercent(); got != 80 {
				t.Errorf("after the load: GC percent %d, want the 80 before it", got)
			}
		})
	}
}
