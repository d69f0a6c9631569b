// Command sglaunch launches, supervises and benchmarks an SGLang server
// from one named profile. This package only wires the CLI to the
// packages that do the work; one file per subcommand.
//
// It must not hold logic of its own beyond flags, exit statuses and
// printing: resolving, launching, checking and measuring live in the
// packages.
package main
