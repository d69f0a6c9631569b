package logging

import (
	"context"
	"log/slog"
)

// AtLeast returns a logger that writes only log's records at min or
// above (a search that launches many servers shows only the supervisor's
// warnings and errors).
func AtLeast(log *slog.Logger, min slog.Level) *slog.Logger {
	return slog.New(levelHandler{Handler: log.Handler(), min: min})
}

// levelHandler passes only records at min or above.
type levelHandler struct {
	slog.Handler
	min slog.Level
}

func (h levelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelHandler) WithAttrs(a []slog.Attr) slog.Handler {
	return levelHandler{Handler: h.Handler.WithAttrs(a), min: h.min}
}

func (h levelHandler) WithGroup(name string) slog.Handler {
	return levelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}
