// Package cliflow is the command-line machinery every sglaunch command
// shares, on top of urfave/cli: Arrange reads the command line against
// the command tree before urfave parses it (options anywhere, after the
// positional arguments too; `help [COMMAND...]` at every level), the
// answers to mistakes with the nearest right spelling (unknown command,
// subcommand or option; an option before its command), Decorate adds
// each command's examples and exit statuses to its help and the usage
// line to its argument errors, and Status maps an error to sglaunch's
// exit statuses (0, 1, 2, or an Exit's own) and prints it.
//
// Its init makes urfave write every flag default in one notation,
// `(default X)`, leaving out those that say nothing (false, 0).
//
// It must not know any command, flag or text of sglaunch's own (those
// are cmd/sglaunch's, handed in as Help texts and a Check), nor resolve,
// launch, check or read anything: it imports no package of sglaunch's
// but the small shared ones (internal/inputerr, internal/logging) and
// catalog's Nearest.
package cliflow
