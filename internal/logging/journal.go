package logging

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// IsJournal reports whether w is systemd's journal: an *os.File whose
// device and inode are those JOURNAL_STREAM names. systemd sets the
// variable for a service whose stdout or stderr is connected to the
// journal; a process that inherited it but writes elsewhere (a pipe, a
// file) is not writing to the journal, so the variable alone is not
// enough.
func IsJournal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	dev, ino, ok := strings.Cut(os.Getenv("JOURNAL_STREAM"), ":")
	if !ok {
		return false
	}
	wantDev, err1 := strconv.ParseUint(dev, 10, 64)
	wantIno, err2 := strconv.ParseUint(ino, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	id, ok := StreamOf(f)
	return ok && id == Stream{Dev: wantDev, Ino: wantIno}
}

// Stream names a journal stream as JOURNAL_STREAM does: its socket's
// device and inode.
type Stream struct{ Dev, Ino uint64 }

// StreamOf is the stream f writes to; false when f cannot be stat'ed.
func StreamOf(f *os.File) (Stream, bool) {
	fi, err := f.Stat()
	if err != nil {
		return Stream{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Stream{}, false
	}
	return Stream{uint64(st.Dev), uint64(st.Ino)}, true
}

// Priority is the sd-daemon prefix for a level: journald stores a line
// that starts with "<N>" at syslog priority N (3 error, 4 warning, 6
// info, 7 debug), so that `journalctl -p warning` finds it. A line
// without one is stored at the unit's SyslogLevel= (info).
func Priority(l slog.Level) string {
	switch {
	case l >= slog.LevelError:
		return "<3>"
	case l >= slog.LevelWarn:
		return "<4>"
	case l >= slog.LevelInfo:
		return "<6>"
	}
	return "<7>"
}

// ForJournal returns text as it should be written to w: unchanged, or,
// when w is the journal, with every line prefixed by l's priority (each
// line of a multi-line message becomes its own journal entry).
func ForJournal(w io.Writer, l slog.Level, text string) string {
	if !IsJournal(w) {
		return text
	}
	return prefixLines(Priority(l), text)
}

// prefixLines puts prefix before every line of text.
func prefixLines(prefix, text string) string {
	trail := strings.HasSuffix(text, "\n")
	text = strings.TrimSuffix(text, "\n")
	out := prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
	if trail {
		out += "\n"
	}
	return out
}

// journalJSON is the JSON handler for the journal: each object goes out
// in one Write behind its record's priority prefix.
type journalJSON struct {
	inner slog.Handler
	w     *prefixWriter
}

// prefixWriter writes each Write behind the prefix the handler set for
// the record being written; mu is held across the record.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	buf := make([]byte, 0, len(p.prefix)+len(b))
	buf = append(append(buf, p.prefix...), b...)
	if _, err := p.w.Write(buf); err != nil {
		return 0, err
	}
	return len(b), nil
}

func newJournalJSON(w io.Writer) slog.Handler {
	pw := &prefixWriter{w: w}
	return journalJSON{inner: slog.NewJSONHandler(pw, nil).WithAttrs([]slog.Attr{slog.String("logger", "sglaunch")}), w: pw}
}

func (h journalJSON) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h journalJSON) Handle(ctx context.Context, r slog.Record) error {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	h.w.prefix = Priority(r.Level)
	return h.inner.Handle(ctx, r)
}

func (h journalJSON) WithAttrs(attrs []slog.Attr) slog.Handler {
	return journalJSON{inner: h.inner.WithAttrs(attrs), w: h.w}
}

func (h journalJSON) WithGroup(name string) slog.Handler {
	return journalJSON{inner: h.inner.WithGroup(name), w: h.w}
}
