// Package sim embeds a simulated SGLang server, a stdlib-only Python package
// named sglang, and unpacks it where python3 can import it.
//
// The sim stands in for the real server in the demo and in every test that
// needs one: `python3 -m sglang.launch_server` parses SGLang's real flags
// (from the catalog Unpack writes beside it), starts one scheduler process
// per TP rank and a detokenizer, logs SGLang's start-up lines in SGLang's
// order, binds its port only after the simulated load, warms up, and serves
// /health, /server_info, /model_info, /v1/models, /generate and the OpenAI
// endpoints with tokens on an exact TTFT/ITL schedule. SGLANG_SIM_* variables
// set its timing and inject failures (a crash during load, a hang after
// ready, an ignored SIGTERM, a worker that escapes its session, a log flood);
// sim/README.md lists them.
//
// What it must not do: run a model, touch a GPU or the network beyond its own
// port, import anything outside Python's standard library, or differ from
// SGLang in anything a client or supervisor can observe (flags, exit statuses,
// log lines, process tree, endpoints) without the difference being documented
// in sim/README.md. This Go package only unpacks files; it starts no process.
package sim
