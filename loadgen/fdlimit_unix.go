//go:build unix

package loadgen

import (
	"fmt"
	"syscall"
)

// fdReserve is what the process needs open beside its streams: standard
// streams, the log and record files, the poller, the calls beside the
// load (/server_info, /flush_cache).
const fdReserve = 64

// getrlimit and setrlimit are the seams tests replace.
var (
	getrlimit = func(l *syscall.Rlimit) error { return syscall.Getrlimit(syscall.RLIMIT_NOFILE, l) }
	setrlimit = func(l *syscall.Rlimit) error { return syscall.Setrlimit(syscall.RLIMIT_NOFILE, l) }
)

// raiseFileLimit makes room for streams connections: it raises the soft
// limit on open files to what they need when the hard limit allows (Go
// raises it to one below the hard limit at start-up on Linux; this also
// covers a soft limit lowered since, and other systems). It returns a warning
// when the limit binds: the level then runs with fewer connections than
// streams, and the connections that could not be opened fail their
// requests ("too many open files"). Empty when there is room.
func raiseFileLimit(streams int) string {
	if streams <= 0 {
		return ""
	}
	need := uint64(streams) + fdReserve
	var l syscall.Rlimit
	if err := getrlimit(&l); err != nil {
		return ""
	}
	if l.Cur >= need {
		return ""
	}
	// Only a raise that makes room: a call to setrlimit also stops Go
	// from giving children started later the limit sglaunch itself
	// started with (Go raises its own to one below the hard limit).
	if need <= l.Max {
		want := syscall.Rlimit{Cur: need, Max: l.Max}
		if err := setrlimit(&want); err == nil {
			l = want
		}
	}
	if l.Cur >= need {
		return ""
	}
	return fmt.Sprintf("%d streams need about %d open files, but the limit is %d (hard limit %d): at most about %d streams can be open at once; raise it (ulimit -Hn, LimitNOFILE=)",
		streams, need, l.Cur, l.Max, max(int64(l.Cur)-fdReserve, 0))
}
