// Package health decides when an SGLang server is ready and whether it is
// still alive.
//
// A Gate polls /health during the load (connection refused and 503 mean
// "still loading"), reads the server's output through a Tracker to name
// the start-up phases and to probe at once when SGLang logs that it is
// ready, and fails on its own budgets (start timeout, stall). Liveness
// probes /health after ready. Load is a load's timing, stored the same
// way everywhere; History remembers earlier loads per plan fingerprint
// for the ETA. Probes retry through go-retryablehttp on package
// sglangapi's transport, so that the proxy rule and the status errors are
// those of every other call to the server.
//
// What it must not do: start, signal or wait for processes (package
// launcher does), or import launcher or supervise. Every wait here takes
// a context; the caller cancels it when the server exits, so no wait
// outlives the server.
package health
