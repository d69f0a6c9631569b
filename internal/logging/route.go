package logging

import (
	"io"
	"os"
	"sync/atomic"
)

// A launch that relays the server's output to the journal writes it from
// its own queue and, while journald lags, may have taken only part of a
// block. sglaunch's own lines written to the same stream in that moment
// would land inside a server line. While a relay runs, it takes the
// journal stream's own lines too (RouteJournal), in order with the
// server's: the handlers New makes for the journal write through
// routedWriter.

// route is the relay that takes a journal stream's lines.
type route struct {
	stream Stream
	write  func([]byte)
}

var current atomic.Pointer[route]

// RouteJournal hands the lines sglaunch writes to f's journal stream to
// write (whole lines, one record at a time) until undo is called.
func RouteJournal(f *os.File, write func([]byte)) (undo func()) {
	id, ok := StreamOf(f)
	if !ok {
		return func() {}
	}
	r := &route{stream: id, write: write}
	current.Store(r)
	return func() { current.CompareAndSwap(r, nil) }
}

// routedWriter is the journal's writer for sglaunch's own lines: its
// stream's route when one is set, the stream itself otherwise.
type routedWriter struct {
	w      io.Writer
	stream Stream
	ok     bool
}

func newRoutedWriter(w io.Writer) io.Writer {
	f, isFile := w.(*os.File)
	if !isFile {
		return w
	}
	id, ok := StreamOf(f)
	return &routedWriter{w: w, stream: id, ok: ok}
}

func (r *routedWriter) Write(b []byte) (int, error) {
	if rt := current.Load(); r.ok && rt != nil && rt.stream == r.stream {
		rt.write(b)
		return len(b), nil
	}
	return r.w.Write(b)
}
