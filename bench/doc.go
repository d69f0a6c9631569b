// Package bench runs benchmark workloads against an SGLang server and
// keeps every result with the plan that produced it.
//
// Three rooms: package bench/workload says what to run (workloads,
// datasets, selection), this package runs it and keeps and judges the
// results, and package bench/report renders records (text, HTML, export).
//
// Here: the run's life cycle (Run: launch, cancel on server death,
// keep-running, stop, save, signals on a channel) and the Runner that
// drives the load generator (package loadgen) or runs an external
// command workload in its own process group. Each round of a level starts
// with POST /flush_cache and ends with its accept length: its requests'
// own (meta_info), else the server's average from /server_info. Each
// run leaves one record: a JSON file holding the redacted plan and its
// fingerprint, versions, host facts, the server's load time and phases
// and speculative settings, and every workload's definition and metrics
// (each round's too), written atomically whether the run succeeded or
// failed, and with --details a JSON line per request beside it. Store
// lists and loads records (Benchmarked for serve's lookup); Compare sets
// two side by side: metric deltas in %, each metric's own interval from
// its values in each round (Welch's t) and the verdict that follows it,
// plan differences. Locator finds a URL run's server on this host through
// verify's reader.
//
// What it must not do: start, supervise or stop the server itself
// (package launch starts it and hands Run a starter; bench imports
// neither launch nor launcher), render (bench/report does), or import
// sglang: the SGLang version is asked from the interpreter's package
// metadata.
package bench
