package launcher

import (
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/internal/iovec"
	"golang.org/x/sys/unix"
)

// journalDirect writes the relay's blocks to the journal from the relay
// itself, in one sendmsg of the block's runs and prefixes: no copy, and
// no hand-over to the queue's writer. The relay waits for a journal that
// keeps up, as it would for any output: room in its stream within
// journalPoll of asking, the whole block within journalPatience. A
// journal that takes longer has fallen behind; what it has not taken of
// the block goes to the queue, and the queue takes the blocks after it
// until it has caught up, so that a slow journal never holds the relay,
// nor the server's pipe behind it.
type journalDirect struct {
	journal syscall.RawConn // the journal's stream socket
}

// journalPoll is how long the relay waits for room in the journal's
// stream before it counts the journal as behind; journalPatience how long
// it waits in all for one block. A journal that makes room now and then
// but slowly is behind as well: the server's pipe (1 MiB) must not fill
// while the relay waits.
const (
	journalPoll     = time.Millisecond
	journalPatience = 5 * time.Millisecond
)

// newJournalDirect is nil where the journal is not a stream socket
// (sendmsg's MSG_DONTWAIT is what keeps a write from blocking): the queue
// then takes every block.
func newJournalDirect(journal *os.File) *journalDirect {
	jc, err := journal.SyscallConn()
	if err != nil {
		return nil
	}
	socket := false
	_ = jc.Control(func(fd uintptr) {
		typ, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TYPE)
		socket = err == nil && typ == unix.SOCK_STREAM
	})
	if !socket {
		return nil
	}
	return &journalDirect{journal: jc}
}

// write sends segs, in order, for as long as the journal keeps up. It
// returns the pieces not sent (nil when all were).
func (d *journalDirect) write(segs [][]byte) (rest [][]byte) {
	var waited time.Duration
	for len(segs) > 0 {
		k := min(len(segs), iovMax)
		var n int
		var err error
		_ = d.journal.Control(func(fd uintptr) {
			n, err = unix.SendmsgBuffers(int(fd), segs[:k], nil, nil, unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		})
		if n > 0 {
			segs = iovec.Advance(segs, n)
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if !errors.Is(err, unix.EAGAIN) {
			// The journal gone, or refusing: the queue's writer meets
			// the error as any write to the stream would.
			return segs
		}
		if waited >= journalPatience {
			return segs // slow: the queue takes over
		}
		ready, t0 := 0, time.Now()
		_ = d.journal.Control(func(fd uintptr) {
			ready, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}, int(journalPoll/time.Millisecond))
		})
		waited += time.Since(t0)
		if ready <= 0 {
			return segs // behind: the queue takes over
		}
	}
	return nil
}

// iovMax is how many pieces one sendmsg takes (IOV_MAX).
const iovMax = 1024
