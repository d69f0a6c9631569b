// Package logging formats sglaunch's own lines: "sglaunch: ..." text or
// one JSON object per line, each written with a single Write so that it
// never interleaves mid-line with the server's output.
//
// It must not format or filter the server's output (the launcher relays
// that as it comes).
package logging
