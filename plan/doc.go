// Package plan turns a profile into one launch plan: the interpreter,
// argv and child environment, with the layer each value came from.
//
// Resolution layers, lowest first: built-in defaults < the extends chain
// < the profile < the mode overlay (serve or bench) < SGLAUNCH_*
// variables < the command line (--set, --unset, arguments after --).
//
// The package owns what a plan means: the managed environment, the
// perf-neutral flags, the canonical form of every flag (the setting it
// stores into, named by the flag that owns its argparse dest, so aliases
// and deprecated spellings are one setting, and its value by the
// catalog's type), the settings given twice in one layer (Repeats), the
// fingerprint over that form,
// the typed settings, the redacted View that records store, the one
// projection of a plan for comparison (Side), Diff, the one rule by
// which two plans are equal, and Row, the one row type for a setting
// compared, wherever it is (verify, diff, bench compare, a group's ranks,
// serve's "benchmarked:" line).
//
// It is portable and pure: it starts no process, reads no /proc, opens
// no socket, and never imports launcher or any package that does.
package plan
