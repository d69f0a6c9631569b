// Package bench runs benchmark workloads against an SGLang server and
// keeps every result with the plan that produced it.
//
// A workload is either a load for the built-in generator (package
// loadgen: an API, input and output lengths or a dataset of prompts as
// bench_serving defines them, closed-loop concurrency levels or open-loop
// request rates, a request count or a duration per round, rounds per
// level, an SLO) or an external command template, such as SGLang's own
// bench_serving, run with the plan's environment. Workloads come from the
// built-ins (decode-1, sweep), a profile's bench.workloads, or YAML
// files, decoded strictly with file:line:col errors; dataset files are
// read (bounded) before any server starts.
//
// Each round of a level starts with POST /flush_cache and ends with the
// server's accept length. Each run leaves one record: a JSON file holding
// the redacted plan and its fingerprint, versions, host facts, the
// server's load time and phases and speculative settings, and every
// workload's definition and metrics (each round's too), written
// atomically whether the run succeeded or failed, and with --details a
// JSON line per request beside it. Store lists and loads records; Compare
// sets two side by side (metric deltas in %, an interval and a verdict
// from the rounds, plan differences); WriteBenchServing exports one in
// bench_serving's result format; WriteReport draws records as one HTML
// page of SVG charts.
//
// What it must not do: start, supervise or stop the server itself
// (package launch starts it and hands Run a starter; bench imports
// neither launch nor launcher), or import sglang: the SGLang version is
// asked from the interpreter's package metadata.
package bench
