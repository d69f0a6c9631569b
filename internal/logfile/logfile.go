package logfile

import (
	"fmt"
	"io"
	"sync"
)

// Writer serialises writes to a log and cuts it at the first error.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	name    string
	onCut   func(msg string)
	written int64
	cut     string
}

// New returns a Writer to w, named name in its messages; onCut is told
// once, at the first failed write, that the log is cut (nil: nobody).
func New(w io.Writer, name string, onCut func(msg string)) *Writer {
	return &Writer{w: w, name: name, onCut: onCut}
}

// Write writes p unless the log is cut. It never fails: a full disk must
// not stop the relay that feeds it.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut != "" {
		return len(p), nil
	}
	n, err := l.w.Write(p)
	l.written += int64(n)
	if err != nil {
		l.cut = fmt.Sprintf("server log %s: %v: the log is cut after %d bytes; the server's output goes on elsewhere but not into it", l.name, err, l.written)
		if l.onCut != nil {
			l.onCut(l.cut)
		}
	}
	return len(p), nil
}

// Cut says why and where the log was cut; "" while it is whole.
func (l *Writer) Cut() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut
}
