// Package preflight checks a resolved launch plan for the mistakes that
// otherwise cost a full model load, or cost nothing visible at all:
// unknown or silently coerced NCCL variables, CUDA and PyTorch variables
// their readers reject, SGLang flags the installed SGLang rejects or has
// deprecated, SGLANG_* variables it no longer reads, a missing model, a
// busy port, too few GPUs.
//
// Run returns a Report: one Finding per check and subject, each PASS, WARN
// or FAIL with the reason and the fix, or SKIP for a check that did not run
// (it proves nothing, so it is never counted as a pass). The flag list comes from the plan's
// own interpreter (`python -m sglang.launch_server --help`, read by
// preflight/sglanghelp, cached per
// interpreter and SGLang version under the state directory, the 16 most
// recently used kept), falling back to the embedded
// catalog when SGLang is not installed. Every child runs through
// internal/childproc; the interpreter probe and the GPU query are
// internal/hostprobe's, and Options.Probes shares their answers with the
// rest of the command (bench asks them again).
//
// What it must not do: import sglang in-process or start the server, write
// anywhere but its cache under the state directory, leave a child process
// behind, or print anything itself (callers render the Report). Secret
// values never appear in a finding.
package preflight
