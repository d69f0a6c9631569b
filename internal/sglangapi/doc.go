// Package sglangapi is sglaunch's one client for an SGLang server's HTTP
// API: /health (the readiness gate's: it generates one token), /ready or
// /v1/models (Up: is it up, without generating), /server_info,
// /model_info, /flush_cache, and the transport that streamed /generate
// and /v1/chat/completions requests run on.
//
// One policy for every caller:
//   - the bearer token (the server's --api-key), when set, on every
//     request to the server's host; SGLang leaves /health*, /ready* and
//     /metrics* open, but a gateway in front of it may not;
//   - no proxy for a loopback server (127.0.0.0/8, ::1, localhost), the
//     environment's proxy (HTTP_PROXY, NO_PROXY, ...) for any other host;
//   - a timeout per kind of call: above SGLang's own 20 s health
//     generation (SGLANG_HEALTH_CHECK_TIMEOUT) for /health, a few seconds
//     for introspection;
//   - response bodies read to a bounded size;
//   - errors that name the method, the URL and the HTTP status
//     (*StatusError), so a caller can tell 503 from a refused connection.
//
// What it must not do: know about plans, profiles or records (it takes a
// base URL and a key as plain values), retry (package health owns the
// readiness gate's retries), log, or read the environment beyond the
// proxy variables net/http reads. It builds on every platform sglaunch
// builds on.
package sglangapi
