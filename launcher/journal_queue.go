package launcher

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
)

// journalQueueBytes bounds what waits for a slow journal, per stream: a
// start-up flood of 10 MB reaches journald whole (test/systemd counts
// its lines), a server that floods for longer than journald keeps up
// loses lines. With the batch being written, a stream holds at most
// twice this, and only while the journal lags: a large batch's buffer is
// let go once written.
const journalQueueBytes = 16 << 20

// journalKeepBytes is the largest buffer kept for reuse: a block the
// relay read whole (relayBuffer) and rewrote.
const journalKeepBytes = 2 * relayBuffer

// journalBlockCap is the capacity the journal's buffers are made with: a
// whole relayBuffer block and its prefixes.
const journalBlockCap = relayBuffer + relayBuffer/64 + 64

// journalQueue writes the relay's blocks to the journal from its own
// goroutine, so that a journal slower than the server never stops the
// relay from draining the server's pipe (a full pipe would stop the
// server). Up to journalQueueBytes wait; a block that does not fit is
// dropped whole, its lines counted, and where it would have been the
// journal gets one line (at warning priority) saying how many lines were
// dropped, written once the journal takes writes again. The log file,
// the tail and the load tracker get every line regardless.
//
// The blocks wait as they were handed over, not copied into one buffer:
// the writer writes each (whole lines) in one write, and gives its buffer
// back for the relay's next block. A small block is appended to the one
// before it when that has room, so that a lagging journal is not written
// a line at a time.
//
// The server's stdout and stderr usually reach the same journal stream;
// their relays then share one queue, and take turns writing in line
// (inLine), so that one's block never lands inside a line of the other's.
type journalQueue struct {
	dst    io.Writer
	direct *journalDirect // dst written in line (writeInLine); nil if it cannot be
	inLine sync.Mutex     // held for a block written in line and what of it is queued
	mu     sync.Mutex
	wake   *sync.Cond
	// queued waits for the writer, size bytes in all; free holds written
	// blocks' buffers for the relay's next ones.
	queued, free [][]byte
	size         int
	dropped      int    // lines dropped and not yet said
	writing      bool   // the writer is writing a batch
	takeovers    int    // times the queue took over from the relay's in-line writes
	users        int    // relays writing to it; the last one's close ends it
	unroute      func() // ends the routing of sglaunch's own lines here
	closed       bool
	done         chan struct{}
}

// journalFree is how many written buffers wait for reuse.
const journalFree = 4

func newJournalQueue(dst io.Writer) *journalQueue {
	q := &journalQueue{dst: dst, users: 1, done: make(chan struct{})}
	if f, ok := dst.(*os.File); ok {
		q.direct = newJournalDirect(f)
	}
	q.wake = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// Write queues a copy of b (whole lines, as the relay passes them) or
// drops it. It never blocks on the journal.
func (q *journalQueue) Write(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.fits(len(b), b) {
		return len(b), nil
	}
	q.push(append(q.spare(), b...), false)
	return len(b), nil
}

// hand queues b (whole lines) or drops it, like Write, but takes b itself:
// the relay formats a block straight into the buffer the writer then
// writes, with no copy. It returns an empty buffer for the relay's next
// block.
func (q *journalQueue) hand(b []byte) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(b) == 0 {
		return b
	}
	if !q.fits(len(b), b) {
		return b[:0]
	}
	if q.push(b, true) {
		return b[:0] // appended to the block before it
	}
	return q.spare()
}

// idle reports whether nothing waits for the journal, nothing is being
// written to it and no dropped lines wait to be told: a block written
// to it now comes after everything before it.
func (q *journalQueue) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queued) == 0 && !q.writing && q.dropped == 0
}

// writeInLine writes segs (a block's runs and prefixes) to the journal
// from the caller, when the queue is idle: what the journal does not take
// in time is queued whole, and the queue takes the blocks after it. It
// reports false, having written nothing, when the queue is not idle: the
// caller then queues the block (queueRuns).
func (q *journalQueue) writeInLine(segs [][]byte) bool {
	q.inLine.Lock()
	defer q.inLine.Unlock()
	if !q.idle() {
		return false
	}
	if rest := q.direct.write(segs); len(rest) > 0 {
		// The queue was idle, so the rest fits: no line is cut.
		q.mu.Lock()
		q.takeovers++
		q.mu.Unlock()
		q.queueRuns(rest, true)
	}
	return true
}

// writeOwn writes one of sglaunch's own lines (routed to the queue by
// logging.RouteJournal) in order with the server's blocks: in line when
// nothing waits, queued otherwise, never dropped. Written to the stream
// directly, it could land inside a server line the journal had taken
// only part of.
func (q *journalQueue) writeOwn(line []byte) {
	if q.direct != nil && q.writeInLine([][]byte{line}) {
		return
	}
	q.mu.Lock()
	closed := q.closed
	q.mu.Unlock()
	if closed {
		_, _ = q.dst.Write(line) // the relays are done
		return
	}
	q.queueRuns([][]byte{line}, true)
}

// queueRuns queues a copy of segs, or, unless whole, drops them when
// they do not fit.
func (q *journalQueue) queueRuns(segs [][]byte, whole bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	if !whole && !q.fits(n, segs...) {
		return
	}
	b := q.spare()
	if cap(b) < n {
		b = make([]byte, 0, max(n, journalBlockCap))
	}
	for _, s := range segs {
		b = append(b, s...)
	}
	q.push(b, false)
}

// fits reports whether n more bytes can wait, and counts the lines of
// pieces (the block's, n bytes in all) dropped when not; mu is held.
func (q *journalQueue) fits(n int, pieces ...[]byte) bool {
	if q.size+n > journalQueueBytes {
		lines := 0
		for _, p := range pieces {
			lines += bytes.Count(p, []byte{'\n'})
		}
		q.dropped += max(lines, 1)
		return false
	}
	q.sayDropped()
	return true
}

// push queues b, after the line that tells of dropped lines if one is
// due; copied reports that b was appended to the last waiting block
// (only when mayCopy, for a small b) and stays the caller's. mu is held.
func (q *journalQueue) push(b []byte, mayCopy bool) (copied bool) {
	q.size += len(b)
	q.wake.Signal()
	if n := len(q.queued); mayCopy && n > 0 && len(b) <= 4<<10 {
		if last := q.queued[n-1]; cap(last)-len(last) >= len(b) {
			q.queued[n-1] = append(last, b...)
			return true
		}
	}
	q.queued = append(q.queued, b)
	return false
}

// spare is an empty buffer: a written one, or nil. mu is held.
func (q *journalQueue) spare() []byte {
	n := len(q.free)
	if n == 0 {
		return nil
	}
	b := q.free[n-1]
	q.free[n-1] = nil
	q.free = q.free[:n-1]
	return b[:0]
}

// sayDropped queues the line that tells of the lines dropped since the
// last one said; mu is held.
func (q *journalQueue) sayDropped() {
	if q.dropped == 0 {
		return
	}
	line := append(q.spare(), prioWarn...)
	line = append(line, "sglaunch: "...)
	line = strconv.AppendInt(line, int64(q.dropped), 10)
	line = append(line, " lines of the server's output were dropped here: the journal took them slower than the server wrote them\n"...)
	q.dropped = 0
	q.push(line, false)
}

func (q *journalQueue) run() {
	defer close(q.done)
	var batch [][]byte
	q.mu.Lock()
	for {
		for len(q.queued) == 0 && !q.closed {
			q.wake.Wait()
		}
		if q.closed {
			q.sayDropped()
		}
		if len(q.queued) == 0 {
			q.mu.Unlock()
			return
		}
		batch, q.queued = q.queued, batch[:0]
		q.size = 0
		q.writing = true
		q.mu.Unlock()
		// A failed write (the journal gone) loses the block; the relay
		// keeps draining all the same.
		for _, b := range batch {
			_, _ = q.dst.Write(b)
		}
		q.mu.Lock()
		q.writing = false
		for i, b := range batch {
			if len(q.free) < journalFree && cap(b) <= journalKeepBytes {
				q.free = append(q.free, b[:0])
			}
			batch[i] = nil
		}
	}
}

// share adds a relay to the queue's writers.
func (q *journalQueue) share() *journalQueue {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.users++
	return q
}

// close ends a relay's use of the queue; the last one's writes what is
// queued, and then returns.
func (q *journalQueue) close() {
	q.mu.Lock()
	q.users--
	if q.users > 0 {
		q.mu.Unlock()
		return
	}
	q.closed = true
	q.wake.Signal()
	q.mu.Unlock()
	<-q.done
	if q.unroute != nil {
		q.unroute()
	}
}
