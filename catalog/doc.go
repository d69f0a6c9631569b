// Package catalog holds the reference data sglaunch checks plans against:
// SGLang's launch_server flags and environment registry, built from the
// tables generated from SGLang's source (package sglangtab, one set per
// SGLang version: SGLangArgs and SGLangEnvCatalog are the newest set's,
// ArgsFor and EnvsFor an installed version's, the nearest older set when
// it has none), and NCCL's environment variables (NCCL 2.30.7), embedded
// from data/ with the few SGLang notes the tables cannot express.
//
// Callers that can ask the installed SGLang (its --help, its package
// sources) should prefer that answer and fall back to this catalog. The
// package parses and looks up; it never runs anything and never touches
// the network, and it holds no hand-copied list of SGLang's flags or
// variables (those live in testdata/, to compare against).
package catalog
