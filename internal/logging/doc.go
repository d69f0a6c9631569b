// Package logging formats sglaunch's own lines: "sglaunch: ..." text or
// one JSON object per line, each written with a single Write so that it
// never interleaves mid-line with the server's output. When stderr is
// systemd's journal, each line carries its sd-daemon priority prefix
// (<3> error, <4> warning, <6> info).
//
// It must not format or filter the server's output (the launcher relays
// that as it comes).
package logging
