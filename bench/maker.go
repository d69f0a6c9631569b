package bench

import (
	"context"
	"time"

	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/version"
)

// RecordMaker starts the records of one sglaunch command (bench's one,
// tune's one a point): each is a NewRecord of the moment it is made,
// carrying the command line args with its secrets redacted, this
// sglaunch's version and the host's facts, gathered once here.
func RecordMaker(ctx context.Context, args []string, probes *hostprobe.Memo, lookPath func(string) (string, error)) func() *Record {
	argv, host := redact.CommandLine(args), HostFacts(ctx, probes, lookPath)
	return func() *Record {
		r := NewRecord(time.Now())
		r.Argv, r.Sglaunch, r.Host = argv, version.String(), host
		return r
	}
}
