package childproc

import (
	"bytes"
	"io"
	"os"
	"time"

	"github.com/sglaunch/sglaunch/internal/tail"
)

// capture is a captured stream: what it kept, and whether it dropped
// anything.
type capture interface {
	io.Writer
	kept() []byte
	cut() bool
}

// tailCapture keeps the last bytes of a stream (stderr: the end says why
// a child failed).
type tailCapture struct{ b tail.Buffer }

func newTailCapture(max int) *tailCapture { return &tailCapture{tail.Buffer{Max: max}} }

func (t *tailCapture) Write(p []byte) (int, error) { return t.b.Write(p) }
func (t *tailCapture) kept() []byte                { return []byte(t.b.String()) }
func (t *tailCapture) cut() bool                   { return t.b.Dropped() > 0 }

// cappedBuffer keeps the first max bytes written to it and drops the
// rest, still accepting them so that the child never blocks on a full
// pipe.
type cappedBuffer struct {
	b         bytes.Buffer
	max       int
	truncated bool
}

func (c *cappedBuffer) kept() []byte { return c.b.Bytes() }
func (c *cappedBuffer) cut() bool    { return c.truncated }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room < len(p) {
		c.truncated = true
		c.b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.b.Write(p)
}

// stream is one pipe from the child and the goroutine that copies it to
// its destination. sglaunch owns the pipe (the child gets the write end
// as an *os.File), rather than letting os/exec make one, so that Wait can
// return when the child exits instead of when the last holder of the
// write end lets go: that may be a daemon the child left behind.
type stream struct {
	r, w *os.File
	dst  io.Writer
	done chan struct{}
}

func newStream(dst io.Writer) (*stream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &stream{r: r, w: w, dst: dst, done: make(chan struct{})}, nil
}

// copy runs once the child has started and holds its own write end.
func (s *stream) copy() {
	defer close(s.done)
	_, _ = io.Copy(s.dst, s.r)
}

// cut makes a Read blocked on a pipe still held open return at once; the
// read end is pollable, so a deadline does it, and closing is the
// fallback.
func (s *stream) cut() {
	if s.r.SetReadDeadline(time.Now()) != nil {
		s.r.Close()
	}
}

// sameWriter says whether both streams go to one writer, which then gets
// one pipe and one copier, as os/exec does, so that writes to it never
// race. A writer of a type that cannot be compared is never the same.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}
