package loadgen

import (
	"os"
	"runtime/debug"
)

// gcPercentDuringLoad is the garbage collector's target while a level
// runs, unless GOGC is set. The collector lets the heap grow by this
// share of what is live (goroutine stacks included) before it collects,
// and at thousands of open streams that garbage is a third of the
// client's memory: at 2048 streams, 13.5-19.3 KiB per stream at the
// default 100 against 11.5-13.0 at 50, with no CPU per token measured
// for it (the live heap is small; a collection is short).
const gcPercentDuringLoad = 50

// lowerGC sets gcPercentDuringLoad and returns what restores the target
// before it; nothing when GOGC is set (the user's word stands).
func lowerGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	before := debug.SetGCPercent(gcPercentDuringLoad)
	return func() { debug.SetGCPercent(before) }
}
