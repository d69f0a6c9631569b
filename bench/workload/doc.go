// Package workload says what a benchmark runs: the workloads, decoded
// strictly from YAML with file:line:col errors, their values and the
// ceilings on them, the built-ins (decode-1, sweep), a profile's
// bench.workloads, the selection of --workload arguments, and the
// datasets of prompts, bench_serving's random, sharegpt,
// generated-shared-prefix and jsonl, with their files read (bounded and
// sampled with the workload's seed) before any server starts.
//
// A workload is either a load for the built-in generator (package
// loadgen: an API, input and output lengths or a dataset, closed-loop
// concurrency levels or open-loop request rates, a request count or a
// duration per round, rounds per level, an SLO) or an external command
// template, such as SGLang's own bench_serving; its templates are checked
// here on sample data, and Expand fills them for the run.
//
// Add a dataset format here: a name in dataset.go, its keys in
// decode_dataset.go, its reader beside dataset_file.go.
//
// What it must not do: run anything, reach a server, or know plans and
// records. It imports none of bench, bench/report, plan, launcher,
// supervise, health, internal/childproc, internal/hostprobe or
// internal/proc (test/layering_test.go holds the rule); loadgen it
// imports for the load types a workload describes.
package workload
