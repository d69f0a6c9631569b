// Package supervise composes a supervised run on top of launcher's
// process: the readiness gate during the load (health.Gate; under a
// setting that lets /health answer without generating, a one-token
// /generate of its own as well), READY=1 and STATUS to systemd, SGLang's
// own start-up timings once ready, the load history for the ETA, then
// liveness probes and the systemd watchdog until the server ends. A
// worker rank's exit 3 after rank 0's drained shutdown is its clean end.
//
// It must not start, signal or reap processes itself (it asks launcher)
// nor resolve plans (package plan); it holds no systemd protocol code
// (package systemd).
package supervise
