// Package tune holds the end-to-end tests of `sglaunch tune` through the
// real binary against the simulator's performance model
// (SGLANG_SIM_PERF_MODEL): a grid finds the known optimum and writes a
// profile `sglaunch config` accepts, a space within noise has no winner,
// a crashing point is a result, kill -9 and --resume, the budget, reuse
// of finished records, and racing against the grid. It is a package of
// its own so that it can run alone: go test ./test/tune.
//
// BenchmarkTune24 measures a 24-point grid and the adaptive strategy on
// it (wall time against the points' own, launches, rounds, the optimum):
// go test ./test/tune -run '^$' -bench Tune24 -benchtime 1x
package tune
