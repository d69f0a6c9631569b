// Package prometheus checks sglaunch's metrics with a real Prometheus:
// the test starts Debian's prometheus on loopback with its own storage
// in a temporary directory, scraping the status endpoint of a real
// `sglaunch serve` of a slow demo profile, and asks Prometheus's HTTP
// API what it saw of the load and of ready. It is its own package so
// that it runs alone: go test ./test/prometheus.
//
// It must go through the sglaunch binary and Prometheus's API only, and
// leave no process behind (Prometheus is killed at the end).
package prometheus
