package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Log formats for sglaunch's own lines.
const (
	Text = "text"
	JSON = "json"
)

// New returns the logger for sglaunch's own lines, which go to w
// (stderr): "sglaunch: message key=value" lines for format text (or ""),
// one JSON object per line for format json. When w is the journal (see
// IsJournal), every line carries its sd-daemon priority prefix.
func New(w io.Writer, format string) (*slog.Logger, error) {
	journal := IsJournal(w)
	if journal {
		w = newRoutedWriter(w) // a relay to the same stream may take the lines
	}
	switch format {
	case "", Text:
		return slog.New(&textHandler{w: w, mu: &sync.Mutex{}, journal: journal}), nil
	case JSON:
		if journal {
			return slog.New(newJournalJSON(w)), nil
		}
		return slog.New(slog.NewJSONHandler(w, nil)).With("logger", "sglaunch"), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// IsJSON reports whether log writes sglaunch's JSON log format.
func IsJSON(log *slog.Logger) bool {
	switch log.Handler().(type) {
	case *slog.JSONHandler, journalJSON:
		return true
	}
	return false
}

// textHandler writes "sglaunch: [warning: ]message key=value ..." lines,
// each with a single Write so that they never interleave mid-line with
// the server's output.
type textHandler struct {
	w      io.Writer
	mu     *sync.Mutex
	attrs  []slog.Attr
	prefix string // group prefix for attribute keys
	// journal: w is the journal; every line of a record (a multi-line
	// error holds the server's last lines) gets the level's priority.
	journal bool
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *textHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("sglaunch: ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		writeAttr(&b, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.prefix, a)
		return true
	})
	b.WriteByte('\n')
	line := b.String()
	if h.journal {
		line = prefixLines(Priority(r.Level), line)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, line)
	return err
}

func writeAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, g := range a.Value.Group() {
			writeAttr(b, prefix+a.Key+".", g)
		}
		return
	}
	var v string
	switch a.Value.Kind() {
	case slog.KindDuration:
		v = strconv.FormatFloat(a.Value.Duration().Seconds(), 'f', 1, 64) + "s"
	case slog.KindTime:
		v = a.Value.Time().Format(time.RFC3339)
	default:
		v = a.Value.String()
	}
	if v == "" || strings.ContainsAny(v, " \t\n\"=") {
		v = strconv.Quote(v)
	}
	fmt.Fprintf(b, " %s%s=%s", prefix, a.Key, v)
}

func (h *textHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		if h.prefix != "" {
			a.Key = h.prefix + a.Key
		}
		c.attrs = append(c.attrs, a)
	}
	return &c
}

func (h *textHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}
