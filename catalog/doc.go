// Package catalog holds the reference data sglaunch checks plans against:
// SGLang's launch_server flags and environment registry, and NCCL's
// environment variables (NCCL 2.30.7), embedded from data/.
//
// The data describes one version of each upstream. Callers that can ask
// the installed SGLang (its --help, its package sources) should prefer
// that answer and fall back to this catalog. The package parses and looks
// up; it never runs anything and never touches the network.
package catalog
