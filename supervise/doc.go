// Package supervise composes a supervised run on top of launcher's
// process: the readiness gate during the load (health.Gate), READY=1 and
// STATUS to systemd, the load history for the ETA, then liveness probes
// and the systemd watchdog until the server ends.
//
// It must not start, signal or reap processes itself (it asks launcher)
// nor resolve plans (package plan); it holds no systemd protocol code
// (package systemd).
package supervise
