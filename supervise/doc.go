// Package supervise composes a supervised run on top of launcher's
// process: the readiness gate during the load (health.Gate; under a
// setting that lets /health answer without generating, a one-token
// /generate of its own as well), READY=1 and STATUS to systemd, SGLang's
// own start-up timings once ready, the load history for the ETA, then
// liveness probes and the systemd watchdog until the server ends. On a
// rank of a multi-node group it also holds the group's end (group.go): a
// failure kills the tree at once; a requested stop drains on rank 0 while
// every worker keeps its server up (a worker's exit 3 after rank 0's
// drained shutdown is its clean end); and the session's result says
// which, so that every rank exits 0 after a requested, drained stop and 1
// after a failure.
//
// It must not start, signal or reap processes itself (it asks launcher)
// nor resolve plans (package plan); it holds no systemd protocol code
// (package systemd).
package supervise
