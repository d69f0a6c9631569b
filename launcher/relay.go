package launcher

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/internal/logfile"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/internal/tail"
)

const (
	// pipeSize is the capacity asked for the server's pipes: room for a
	// flood while the relay is busy.
	pipeSize = 1 << 20
	// relayBuffer is the read size: large enough that a log flood costs
	// few reads, small enough that the block stays in the CPU's cache
	// from the pipe's copy to the journal's search and the socket's copy
	// (1 MiB reads cost the journal relay a tenth more CPU per GiB).
	relayBuffer = 256 << 10
	// partialFlush is how long an unfinished line (a progress bar, a
	// prompt) waits for its newline before it is relayed anyway.
	partialFlush = 50 * time.Millisecond
	// drainTimeout bounds the wait for the last output once every process
	// of the tree is gone.
	drainTimeout = 2 * time.Second
)

// output relays the server's output to sglaunch's stdout/stderr and the
// log file, keeps its tail for error messages, and shows it to the load
// tracker.
type output struct {
	observe func([]byte) // the load tracker; called from the relays
	tail    *tail.Buffer
	file    *lockedFile // nil without --log-file
	// secrets are masked wherever the output goes, by one masker per
	// stream (see mask.go) that also catches a secret split across two
	// reads or flushes.
	secrets [][]byte
	wg      sync.WaitGroup
	readers []*os.File
	// journals are the queues to the journal, one per stream socket
	// (stdout and stderr usually share one).
	journals map[logging.Stream]*journalQueue

	closeMu sync.Mutex
	closed  bool // the readers are closed
}

// whileOpen runs f unless the readers are closed, and keeps them open
// while it runs (a resize uses the pty master's descriptor).
func (o *output) whileOpen(f func()) {
	o.closeMu.Lock()
	defer o.closeMu.Unlock()
	if !o.closed {
		f()
	}
}

// lockedFile is the --log-file; w serialises the writes and reports a
// full disk once, cutting the log there.
type lockedFile struct {
	f *os.File
	w *logfile.Writer
}

func (l *lockedFile) write(b []byte) {
	if l == nil {
		return
	}
	_, _ = l.w.Write(b)
}

// emit passes one block of output on, masked by the stream's masker m:
// to dst, the log file, the tail and the tracker. A write error on dst (a
// closed stdout) is ignored: the relay keeps draining so that the server
// never blocks on its output. With jl (dst is the journal), dst gets the
// block rewritten for the journal; everything else gets it as the server
// wrote it (masked).
func (o *output) emit(dst io.Writer, m *redact.Masker, b []byte, jl *journalLines) {
	if len(b) == 0 {
		return
	}
	if b = m.Block(b); len(b) == 0 {
		return
	}
	switch {
	case jl == nil:
		_, _ = dst.Write(b)
	case jl.queue.direct != nil:
		// While the journal keeps up, the block goes to it from here,
		// as runs of b between the prefixes in one write, with no copy.
		segs, ok := jl.segments(jl.segs[:0], b)
		if !ok {
			segs = append(segs, jl.format(b))
		}
		if !jl.queue.writeInLine(segs) {
			jl.queue.queueRuns(segs, false)
		}
		clear(segs)
		jl.segs = segs[:0]
	default:
		// The rewritten block goes to the journal's queue whole, without
		// a copy: one write per block, whatever its number of lines.
		jl.buf = jl.queue.hand(jl.format(b))
	}
	o.file.write(b)
	_, _ = o.tail.Write(b)
	if o.observe != nil {
		o.observe(b)
	}
}

// relayLines copies a pipe to dst a line at a time: whole lines go out as
// soon as they arrive; a partial line waits up to partialFlush for the
// rest. Lines from the two streams therefore never interleave mid-line in
// the log file or with sglaunch's own lines. When dst is systemd's journal,
// each line gets a priority by its level (see journalLines), the cost
// paid only there, a partial line waits for its newline, and the lines go
// through a bounded queue (see journalQueue): a slow journal costs
// dropped lines, counted and said, never a stalled server.
func (o *output) relayLines(r *os.File, dst io.Writer) {
	o.readers = append(o.readers, r)
	var jl *journalLines
	var jq *journalQueue
	if logging.IsJournal(dst) {
		jq = o.journal(dst.(*os.File))
		jl = &journalLines{queue: jq}
		dst = jq
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		if jq != nil {
			defer jq.close()
		}
		buf := make([]byte, relayBuffer)
		m := newMasker(o.secrets)
		pending := 0
		deadline := false
		for {
			// In the journal a partial line waits for its newline in
			// journald anyway; relayed early, another stream's line
			// would be glued to it.
			if pending > 0 && jl == nil {
				_ = r.SetReadDeadline(time.Now().Add(partialFlush))
				deadline = true
			} else if deadline {
				_ = r.SetReadDeadline(time.Time{})
				deadline = false
			}
			n, err := r.Read(buf[pending:])
			if n > 0 {
				end := pending + n
				if cut := bytes.LastIndexByte(buf[pending:end], '\n'); cut >= 0 {
					cut += pending + 1
					o.emit(dst, m, buf[:cut], jl)
					pending = copy(buf, buf[cut:end])
				} else {
					pending = end
					if pending == len(buf) {
						o.emit(dst, m, buf[:pending], jl)
						pending = 0
					}
				}
			}
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					o.emit(dst, m, buf[:pending], jl)
					pending = 0
					continue
				}
				o.emit(dst, m, buf[:pending], jl)
				o.emit(dst, nil, m.Flush(), jl)
				return
			}
		}
	}()
}

// relayRaw copies a pseudo-terminal's output to dst as it comes: a
// terminal shows progress bars and colours as they are written.
func (o *output) relayRaw(r *os.File, dst io.Writer) {
	o.readers = append(o.readers, r)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		buf := make([]byte, 64<<10)
		m := newMasker(o.secrets)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				o.emit(dst, m, buf[:n], nil)
			}
			if err != nil {
				// EOF, or EIO: how a pty master reports that every process
				// holding the terminal has gone.
				o.emit(dst, nil, m.Flush(), nil)
				return
			}
		}
	}()
}

// journal is the queue to f's journal stream, shared with the relay
// already writing to it.
func (o *output) journal(f *os.File) *journalQueue {
	key, ok := logging.StreamOf(f)
	if q := o.journals[key]; q != nil && ok {
		return q.share()
	}
	q := newJournalQueue(f)
	// sglaunch's own lines to this stream go through the queue too, in
	// order with the server's, until the last relay closes it.
	q.unroute = logging.RouteJournal(f, q.writeOwn)
	if o.journals == nil {
		o.journals = map[logging.Stream]*journalQueue{}
	}
	o.journals[key] = q
	return q
}

// drain waits until the relays have seen the end of their streams, or
// gives up after timeout and closes them: once the whole tree is gone
// nothing should hold a pipe, but a process outside sglaunch's reach (a
// grandchild handed the descriptor) must not keep sglaunch waiting.
func (o *output) drain(timeout time.Duration) {
	done := make(chan struct{})
	go func() {
		o.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(timeout):
		o.closeReaders() // unblocks the reads: the readers are pollable
		select {
		case <-done:
		case <-time.After(timeout):
		}
	}
	o.closeReaders()
	if o.file != nil {
		_ = o.file.f.Close()
	}
}

func (o *output) closeReaders() {
	o.closeMu.Lock()
	defer o.closeMu.Unlock()
	o.closed = true
	for _, r := range o.readers {
		_ = r.Close()
	}
}
