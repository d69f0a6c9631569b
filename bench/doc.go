// Package bench runs benchmark workloads against an SGLang server and
// keeps every result with the plan that produced it.
//
// A workload is either a load for the built-in generator (package
// loadgen: an API, input and output lengths, closed-loop concurrency
// levels or open-loop request rates, a request count, rounds or a
// duration per level) or an external command template, such as SGLang's
// own bench_serving, run with the plan's environment. Workloads come from
// the built-ins (decode-1, sweep), a profile's bench.workloads, or YAML
// files, decoded strictly with file:line:col errors.
//
// Each run leaves one record: a JSON file holding the redacted plan and
// its fingerprint, versions, host facts, the server's load time and
// phases, and every workload's definition and metrics, written atomically
// whether the run succeeded or failed. Store lists and loads records;
// Compare sets two side by side (metric deltas in %, plan differences).
//
// What it must not do: start, supervise or stop the server (package
// launcher does, the command wires them), or import sglang: the SGLang
// version is asked from the interpreter's package metadata.
package bench
