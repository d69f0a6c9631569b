package launcher

import (
	"bytes"
	"io"
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

// journalQueue writes the relay's blocks to the journal from its own
// goroutine, so that a journal slower than the server never stops the
// relay from draining the server's pipe (a full pipe would stop the
// server). Up to journalQueueBytes wait; a block that does not fit is
// dropped whole, its lines counted, and where it would have been the
// journal gets one line (at warning priority) saying how many lines were
// dropped, written once the journal takes writes again. The log file,
// the tail and the load tracker get every line regardless.
type journalQueue struct {
	dst  io.Writer
	mu   sync.Mutex
	wake *sync.Cond
	// queued waits for the writer; spare is the writer's last batch,
	// reused.
	queued, spare []byte
	dropped       int // lines dropped and not yet said
	closed        bool
	done          chan struct{}
}

func newJournalQueue(dst io.Writer) *journalQueue {
	q := &journalQueue{dst: dst, done: make(chan struct{})}
	q.wake = sync.NewCond(&q.mu)
	go q.run()
	return q
}

// Write queues b (whole lines, as the relay passes them) or drops it.
// It never blocks on the journal.
func (q *journalQueue) Write(b []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queued)+len(b) > journalQueueBytes {
		q.dropped += max(bytes.Count(b, []byte{'\n'}), 1)
		return len(b), nil
	}
	q.sayDropped()
	q.queued = append(q.queued, b...)
	q.wake.Signal()
	return len(b), nil
}

// hand queues b (whole lines) or drops it, like Write, but takes b
// itself when nothing waits: the relay formats a block straight into the
// buffer the writer then writes, with no copy. It returns an empty
// buffer for the relay's next block (b's own when b was copied or
// dropped).
func (q *journalQueue) hand(b []byte) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(b) == 0 {
		return b
	}
	if len(q.queued)+len(b) > journalQueueBytes {
		q.dropped += max(bytes.Count(b, []byte{'\n'}), 1)
		return b[:0]
	}
	q.sayDropped()
	q.wake.Signal()
	if len(q.queued) == 0 {
		spare := q.queued[:0]
		q.queued = b
		return spare
	}
	q.queued = append(q.queued, b...)
	return b[:0]
}

// sayDropped queues the line that tells of the lines dropped since the
// last one said; mu is held.
func (q *journalQueue) sayDropped() {
	if q.dropped == 0 {
		return
	}
	q.queued = append(q.queued, prioWarn...)
	q.queued = append(q.queued, "sglaunch: "...)
	q.queued = strconv.AppendInt(q.queued, int64(q.dropped), 10)
	q.queued = append(q.queued, " lines of the server's output were dropped here: the journal took them slower than the server wrote them\n"...)
	q.dropped = 0
}

func (q *journalQueue) run() {
	defer close(q.done)
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
		batch := q.queued
		q.queued = q.spare[:0]
		q.mu.Unlock()
		// A failed write (the journal gone) loses the batch; the relay
		// keeps draining all the same.
		_, _ = q.dst.Write(batch)
		q.mu.Lock()
		q.spare = nil
		if cap(batch) <= journalKeepBytes {
			q.spare = batch[:0]
		}
	}
}

// close writes what is queued, and then returns.
func (q *journalQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.wake.Signal()
	q.mu.Unlock()
	<-q.done
}
