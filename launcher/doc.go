// Package launcher starts, signals, stops and reaps the server's process
// tree for a plan: its own process group (or a pseudo-terminal), a
// parent-death signal from a locked OS thread, the child subreaper, the
// output relay with its tail, and the exit status. Under systemd the relay
// gives the server's lines their journal priorities and writes them to
// journald's stream itself while journald keeps up; a journal that falls
// behind gets a bounded queue instead, and never the server's pipe.
//
// It runs exactly the plan's argv and environment and decides nothing
// about them (package plan does). It does not resolve plans.
package launcher
