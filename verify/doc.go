// Package verify proves that a running deployment runs what was planned
// or benchmarked. It reads the live processes (argv and environment of
// the server and of every descendant, from /proc), asks the server for
// its own view (/server_info), reads the NCCL config files that fill
// unset variables, and runs the interpreter to see what Python's site
// initialisation (sitecustomize, usercustomize, .pth files) does to the
// environment. It compares all of that with an expected plan, one row per
// setting.
//
// verify only observes: it never signals, restarts or changes a process,
// and it never imports sglang.
package verify
