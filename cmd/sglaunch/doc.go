// Command sglaunch launches, supervises and benchmarks an SGLang server
// from one named profile. This package only wires the CLI to the
// packages that do the work; one file per subcommand. The cli_*.go files
// serve every command alike: cli_args.go arranges the command line before
// urfave parses it (options anywhere, help at every level), cli_suggest.go
// answers mistakes with the nearest right spelling, cli_help.go adds each
// command's examples and exit statuses to its help.
//
// It must not hold logic of its own beyond flags, exit statuses and
// printing: resolving, launching, checking and measuring live in the
// packages. serve and bench hand their launch to launch.Run; the
// command imports none of launcher, health, supervise,
// internal/runstate, internal/proc or internal/childproc, and calls no
// part of a group's start (test/layering_test.go holds it to that).
package main
