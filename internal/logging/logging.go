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
// one JSON object per line for format json.
func New(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "", Text:
		return slog.New(&textHandler{w: w, mu: &sync.Mutex{}}), nil
	case JSON:
		return slog.New(slog.NewJSONHandler(w, nil)).With("logger", "sglaunch"), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// IsJSON reports whether log writes sglaunch's JSON log format.
func IsJSON(log *slog.Logger) bool {
	_, ok := log.Handler().(*slog.JSONHandler)
	return ok
}

// textHandler writes "sglaunch: [warning: ]message key=value ..." lines,
// each with a single Write so that they never interleave mid-line with
// the server's output.
type textHandler struct {
	w      io.Writer
	mu     *sync.Mutex
	attrs  []slog.Attr
	prefix string // group prefix for attribute keys
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
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
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
