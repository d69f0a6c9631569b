// Package loadgentest is a stand-in SGLang server for testing and
// measuring the load generator without Python: it streams /generate and
// /v1/chat/completions responses in SGLang's SSE format on an exact
// schedule, token i of a request at arrival + TTFT + i*ITL.
//
// It serves tests (through httptest) and the client's overhead benchmark
// (test/perf), where the Python simulator would be the bottleneck. It is
// not a simulator of SGLang's life cycle: no health gate, no load phases.
package loadgentest
