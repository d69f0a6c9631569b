package testkit

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// TestMinParallel: -parallel's default rises to the minimum asked for;
// a -parallel given on the command line stays.
func TestMinParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { _ = f.Value.Set(before) })
	given := false
	flag.Visit(func(v *flag.Flag) { given = given || v.Name == "test.parallel" })
	n := runtime.GOMAXPROCS(0) + 3
	MinParallel(n)
	want := strconv.Itoa(n)
	if given {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Errorf("-parallel %s after MinParallel(%d) (given on the command line: %v), want %s", got, n, given, want)
	}
}
