// Package hostprobe asks the host the questions that preflight, bench and
// verify need answered: which GPUs nvidia-smi lists (with the driver's and
// CUDA's versions), what the plan's interpreter says about itself and the
// SGLang it would import, what Python's site initialisation
// (sitecustomize, usercustomize, .pth files) does to the managed
// variables (ProbeSite: preflight before the load, verify on a running
// server's interpreter), and what NCCL's config files fill in for an
// environment (NCCLConf). Each question that runs something is one short
// child, run through childproc, and its answer is parsed here, once.
//
// A Memo remembers the answers for one sglaunch command: `sglaunch bench`
// runs preflight and then records the host and the SGLang version, and
// with one Memo passed to both, nvidia-smi's GPU query and the Python
// probe run once. Answers are read-only once remembered.
//
// What it must not do: import sglang (the probe reads package metadata
// and find_spec, which imports nothing) or CUDA, judge the answers (what
// too few GPUs or a missing SGLang means is preflight's and bench's to
// say), print, or remember anything beyond the Memo it is given: no
// package-level cache, since a long-lived process (or a test) asking again
// after a change must see the change.
package hostprobe
