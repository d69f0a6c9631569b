// Package loadgen is sglaunch's built-in load generator: it streams
// generations from an SGLang server and measures them the way SGLang's
// own bench_serving does, so the numbers compare one to one.
//
// Two APIs: SGLang's native /generate with random input_ids (exact input
// lengths without a tokenizer) or a text, and the OpenAI-compatible
// /v1/chat/completions with stream_options.include_usage and
// continuous_usage_stats (a token count on every chunk). A load's prompts
// are random tokens of fixed length or a prepared list (a dataset, which
// package bench builds). Responses are read as server-sent events, each
// stamped with the arrival of the read that completed it (on Linux the
// kernel's receive stamp, SO_TIMESTAMPNS, so that a client goroutine run
// late at thousands of streams does not delay the stamp; elsewhere, and
// through net/http, when the read returned), through one buffer
// per stream that starts at 1 KiB and grows only for an event that does
// not fit (up to a bound per request). The streamed requests go over
// plain HTTP/1.1 connections loadgen keeps itself (h1*.go: keep-alive,
// Content-Length and chunked bodies, bounded heads and framing lines,
// bearer token, the context's end interrupting reads), read by the
// stream's own goroutine through a 512-byte buffer: no goroutine or buffer
// per connection beside it: an open stream costs about 12 KiB. On Linux a
// connection's socket leaves Go's poller once dialled: one epoll set per
// client (the reactor, h1_raw_linux.go) watches the sockets, in batches
// while many are busy; once a response's head is read the reactor
// follows its body itself, through the same readers, a bounded step per
// wake-up that reads the socket once per event, and the stream's
// goroutine waits only for its end. A
// server behind a proxy, or an https URL, is reached through net/http
// instead, as every call beside the load always is (health,
// server_info, flush_cache, /v1/models). A request's clock starts as its
// first byte is written. Before a
// level, the limit on open files is raised for its streams as far as the
// hard limit allows, with a warning (progress line and level record)
// where it binds. Load shapes: a closed
// loop at a fixed concurrency, or an open loop of Poisson arrivals
// (seeded) under an optional concurrency cap; per level a number of
// requests or a duration, after warm-up requests that are not counted and
// with as many connections open as the level has streams, so that no
// measured request pays a TCP handshake.
//
// Metrics follow bench_serving's definitions and names (completed,
// request_throughput, median_ttft_ms, p99_itl_ms, ...): TTFT is the time
// to the first chunk that carries text; ITL is per token, the gap between
// chunks divided evenly among the tokens the later chunk added (a chunk
// of several tokens, as under speculative decoding, gives several equal
// samples), and the gaps themselves are the chunk_gap metrics; a request
// the server ends with [DONE] and a count of 0 is completed with no token
// (zero_token_completed) and adds no TTFT or ITL sample; TPOT is
// (latency - TTFT) / (output tokens - 1); percentiles interpolate linearly
// as numpy's do. At concurrency 1 it also reports the single-stream
// decode rate in tokens per second, and with an SLO the request goodput
// as vllm bench serve names it.
//
// What it must not do: start or stop servers, read profiles, or write
// files; the bench package does those. The process-wide settings it
// changes are two: the soft limit on open files, raised, never lowered,
// and never past the hard limit; and, while a level runs and unless GOGC
// is set, the garbage collector's target (50 %, gc.go: at thousands of
// streams the garbage the default 100 % allows is a third of the
// client's memory), restored when the level ends. It sends only the requests a level
// asks for, and every goroutine it starts has ended when a call returns.
package loadgen
