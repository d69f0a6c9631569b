// Package sglangsrc reads an SGLang source tree (a directory holding
// python/sglang/, or a git directory and a ref) and derives the tables of
// package catalog/sglangtab from it: the variables SGLang writes into its
// environment, its server arguments (as argparse registers them: dests,
// value types, spelled-out choices, deprecated aliases and what replaces
// them, help), the environment names it reads (the Envs registry, direct
// reads, _DEPRECATED_ENVS), its metrics, endpoints and start-up log lines
// (with the phase each marks), each row with the file and line it came
// from.
//
// The Python is parsed, never imported or run: extract.py, embedded here,
// walks it with python3's ast module. The package runs python3 and git
// only; it must not be used by the sglaunch binary at run time (the
// tables are generated once and checked in).
package sglangsrc
