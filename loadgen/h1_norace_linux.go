//go:build linux && !race

package loadgen

// raceAcquireIO: nothing to tell without the race detector (see
// h1_race_linux.go).
func raceAcquireIO() {}
