// Package sglanghelp reads SGLang's `python -m sglang.launch_server
// --help` (argparse's output, wide or wrapped) into catalog flags: names
// and aliases, nargs, choices, what is required, and what the help says
// is deprecated or removed and what replaces it. Merge completes the
// flags with what the help does not say, from the embedded catalog.
//
// It must not run SGLang or any child, cache, or judge a plan: preflight
// runs the interpreter, keeps the cache and checks the plan's flags
// against what this package read.
package sglanghelp
