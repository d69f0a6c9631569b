package logging

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestAtLeast(t *testing.T) {
	tests := []struct {
		name  string
		log   func(*slog.Logger)
		shown bool
	}{
		{"info hidden", func(l *slog.Logger) { l.Info("point 3 ready") }, false},
		{"warn shown", func(l *slog.Logger) { l.Warn("point 3 ready") }, true},
		{"error shown", func(l *slog.Logger) { l.Error("point 3 ready") }, true},
		{"with attrs keeps the level", func(l *slog.Logger) { l.With("rank", 0).Info("point 3 ready") }, false},
		{"with group keeps the level", func(l *slog.Logger) { l.WithGroup("g").Warn("point 3 ready") }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			log, err := New(&b, "text")
			if err != nil {
				t.Fatal(err)
			}
			tt.log(AtLeast(log, slog.LevelWarn))
			if got := strings.Contains(b.String(), "point 3 ready"); got != tt.shown {
				t.Errorf("shown = %v, want %v (output %q)", got, tt.shown, b.String())
			}
		})
	}
}
