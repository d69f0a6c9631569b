// Package verify proves that a running deployment runs what was planned
// or benchmarked. It holds the one reader of a live deployment (Read:
// locate the server, choose the key its API takes by one rule, see that
// it is up, that its port is its own, and observe every process and,
// on a multi-node server, every rank) and the one judgement of what was
// read against a plan (Compare), in plan's one row type. verify, verify
// --group, diff of a running deployment and a worker rank's observation
// for rank 0 all go through them. diff's operands are read here too
// (operand.go: ParseOperand, ReadOperands, Judge, DiffGroup, WriteDiffs):
// the command only resolves a profile's or a record's plan and renders.
//
// An observation is the argv and environment of the server and of every
// descendant (/proc), the server's own view (/server_info), the NCCL
// config files that fill unset variables, and what Python's site
// initialisation (sitecustomize, usercustomize, .pth files) does to the
// environment in the server's interpreter (both probes live in
// internal/hostprobe, beside the other host probes).
//
// verify only observes: it never signals, restarts or changes a process,
// it never imports sglang, and it asks the server nothing that makes it
// generate. /health is the readiness gate's (supervise, health): on
// SGLang it runs a one-token generation on the GPUs of the deployment,
// so verify asks /ready, or /v1/models where there is none, whether the
// server is up.
package verify
