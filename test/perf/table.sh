#!/bin/sh
# Runs the benchmarks that keep sglaunch's cost figures honest and prints
# them as one Markdown table: each figure a ratio against its reference,
# measured in the same run. From the repository root:
#
#   test/perf/table.sh                  # about 10 minutes on 2 cores
#   SGLAUNCH_PERF_BASELINE=/path/to/older/sglaunch test/perf/table.sh
#
# The baseline, when set, is measured beside this tree's sglaunch in the
# client benchmarks (its rows marked "baseline"). Nothing here runs under
# a plain `go test`: every figure comes from a Benchmark function.
# bench_serving's client needs a python3 with aiohttp (Debian:
# apt-get install python3-aiohttp); without one its figures read n/a.
set -eu
N_CLIENT=${N_CLIENT:-3}   # iterations (alternated clients) per client benchmark
N_RELAY=${N_RELAY:-21}  # relay pairs: the median of 21 is steady to a few hundredths
N_PREFLIGHT=${N_PREFLIGHT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
	go test ./test/perf/bench -run '^$' -bench 'ClientScale|ClientWide' -benchtime "${N_CLIENT}x" -timeout 60m
	go test ./launcher -run '^$' -bench RelayVsCat -benchtime "${N_RELAY}x" -timeout 20m
	go test ./health -run '^$' -bench ObserveFlood -benchtime 2000x -timeout 10m
	go test ./test/perf -run '^$' -bench PreflightAlternating -benchtime "${N_PREFLIGHT}x" -timeout 20m
} >"$out" 2>&1 || { cat "$out"; exit 1; }

# metric NAME: the value go test printed before the unit NAME.
metric() {
	awk -v want="$1" '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == want) v = $i } END { print (v == "" ? "n/a" : v) }' "$out"
}
# metric_of BENCH NAME: the same, from the benchmark lines that start
# with BENCH only.
metric_of() {
	awk -v b="$1" -v want="$2" 'index($1, b) == 1 { for (i = 3; i < NF; i++) if ($(i+1) == want) v = $i } END { print (v == "" ? "n/a" : v) }' "$out"
}
# share A B: A / B as a percentage.
share() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.0f %%", 100 * a / b; else print "n/a" }'; }
scan_start=$(metric_of BenchmarkObserveFlood/start-up scan-cpu-s/GiB)
scan_served=$(metric_of BenchmarkObserveFlood/served scan-cpu-s/GiB)
load=$(cut -d' ' -f1-3 /proc/loadavg)
cat <<TABLE
| figure | measured on | sglaunch | reference | ratio | goal |
|---|---|---|---|---|---|
| client memory per open stream | 2048 streams vs 64 against test/perf/stubserver (TTFT 1 s, ITL 100 ms, 16 tokens out): peak RSS difference / 1984 | $(metric KiB/stream) KiB | $(metric ref-KiB/stream) KiB (refclient.py) | $(metric mem-per-stream-vs-ref) | ≤ 16 KiB |
| client CPU per output token | 256 streams, 128 tokens out, ITL 10 ms (25,600 tok/s offered), whole-process user+sys | $(metric cpu-us/token) µs | $(metric bs-cpu-us/token) µs (bench_serving's own client; $(metric bs-cpu-us/token-sans-json) µs without its JSON parsing); $(metric ref-cpu-us/token) µs (refclient.py) | $(metric cpu-per-token-vs-bench_serving) ($(metric cpu-per-token-vs-bench_serving-sans-json) without its JSON); $(metric cpu-per-token-vs-ref) of refclient.py | ≤ 0.25 × bench_serving |
| median TTFT error, c=2048 | against the median TTFT the stub served the same streams (each request's kernel arrival to its first token's write; nominally 1 s, the stub $(metric c2048-stub-late-%) % late) | $(metric c2048-ttft-err-%) % (against the nominal 1 s: $(metric c2048-ttft-vs-nominal-%) %) | $(metric ref-c2048-ttft-err-%) % (refclient.py) | | ≤ 1 % |
| median TTFT error, c=8192 | the same, 8 tokens 250 ms apart (the stub $(metric c8192-stub-late-%) % late) | $(metric c8192-ttft-err-%) % (against the nominal 1 s: $(metric c8192-ttft-vs-nominal-%) %) | | | ≤ 1 % |
| journal relay throughput | 256 MiB of SGLang-like lines through a pipe into a drained socket (JOURNAL_STREAM set vs not) | $(metric journal-GiB/s) GiB/s | plain relay $(metric plain-GiB/s) GiB/s; cat $(metric cat-GiB/s) GiB/s | journal/plain $(metric journal/plain); plain/cat $(metric plain/cat); dropped $(metric journal-dropped-%) % | journal/plain ≥ 0.8 |
| journal relay CPU | the same | $(metric journal-cpu-s/GiB) s/GiB | plain $(metric plain-cpu-s/GiB) s/GiB; cat $(metric cat-cpu-s/GiB) s/GiB | | |
| start-up line scan CPU (health's Tracker) | 1 MiB blocks of decode lines: before the port is bound (every marker) / after (only the ready line; nothing after it) | $scan_start / $scan_served s/GiB | plain relay $(metric plain-cpu-s/GiB) s/GiB | $(share "$scan_start" "$(metric plain-cpu-s/GiB)") / $(share "$scan_served" "$(metric plain-cpu-s/GiB)") of the relay's CPU | ≤ 20 % (or none once past) |
| preflight, cold ÷ cached | sglaunch preflight --profile demo, two interpreters in turn | cached $(metric cached-ms) ms | cold $(metric cold-ms) ms | $(metric cold/cached) | both cached |

Load average at the end: $load ($(nproc) CPUs).
TABLE
if [ -n "${SGLAUNCH_PERF_BASELINE:-}" ]; then
	echo
	echo "Baseline ($SGLAUNCH_PERF_BASELINE): $(metric base-KiB/stream) KiB/stream, $(metric base-cpu-us/token) µs/token, c=2048 TTFT error $(metric base-c2048-ttft-err-%) %, c=8192 TTFT error $(metric base-c8192-ttft-err-%) %."
fi
