// Command sglaunch launches, supervises and benchmarks an SGLang server
// from one named profile. This package only wires the CLI to the
// packages that do the work; one file per subcommand.
//
// It must not hold logic of its own beyond flags, exit statuses and
// printing: resolving, launching, checking and measuring live in the
// packages. serve and bench hand their launch to launch.Run; the
// command imports none of launcher, health, supervise,
// internal/runstate, internal/proc or internal/childproc, and calls no
// part of a group's start (test/layering_test.go holds it to that).
package main
