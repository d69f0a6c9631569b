// Command sglaunch launches, supervises and benchmarks an SGLang server
// from one named profile. This package only wires the CLI to the
// packages that do the work; one file per subcommand. internal/cliflow
// serves every command alike (options anywhere, help at every level,
// the nearest right spelling for a mistake, exit statuses); this package
// hands it the help texts (help_texts.go) and the checks of sglaunch's
// own arguments (args.go).
//
// It must not hold logic of its own beyond flags, exit statuses and
// printing: resolving, launching, checking and measuring live in the
// packages. serve and bench hand their launch to launch.Run; the
// command imports none of launcher, health, supervise,
// internal/runstate, internal/proc or internal/childproc, and calls no
// part of a group's start (test/layering_test.go holds it to that).
package main
