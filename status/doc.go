// Package status is sglaunch's own status endpoint and its Prometheus
// metrics, for one launch (serve, bench --keep-running):
//
//   - /livez: 200 while the supervision loop runs;
//   - /readyz: 200 only while the readiness gate has passed and liveness
//     holds, else 503 with the phase;
//   - /status: the launch as JSON (Snapshot);
//   - /metrics: the sglaunch_* metrics (client_golang), and with
//     ProxyURL SGLang's own sglang:* series with the same labels.
//
// A State learns everything from the supervisor: it implements
// supervise.Observer (phases through the health.Tracker, probe results
// from the gate and liveness, ready, stop, exit). Launches counts the
// launches of a profile on this host, for the restarts and the exit
// status of the last run. NewInfo builds what a launch is before it
// starts. Local, Fetch, FromRunState and Render serve `sglaunch status`.
//
// What it must not do: start, signal or wait for processes, or import
// launcher or supervise (it satisfies supervise.Observer by its method
// set alone); probe the server's /health itself (a status request never
// reaches the server: /livez and /readyz answer from what the supervisor
// saw); put anything unbounded or secret in a label (every series has the
// labels profile and fingerprint, plus fixed enumerations). The one call
// to the server is the metrics pass-through, made only when asked for.
package status
