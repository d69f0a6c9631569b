package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

func TestTextLogger(t *testing.T) {
	var b bytes.Buffer
	log, err := New(&b, Text)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("healthy after 3.2s", "url", "http://127.0.0.1:30000")
	log.Warn("probe failed", "took", 1500*time.Millisecond, "reason", "timed out")
	log.With("pid", 7).WithGroup("g").Error("gone", "status", exitStatus(137))
	log.Debug("not shown")
	want := "sglaunch: healthy after 3.2s url=http://127.0.0.1:30000\n" +
		"sglaunch: warning: probe failed took=1.5s reason=\"timed out\"\n" +
		"sglaunch: error: gone pid=7 g.status=137\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONLogger(t *testing.T) {
	var b bytes.Buffer
	log, err := New(&b, JSON)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("healthy after 3.2s")
	var rec map[string]any
	if err := json.Unmarshal(b.Bytes(), &rec); err != nil {
		t.Fatalf("not JSON: %q: %v", b.String(), err)
	}
	if rec["msg"] != "healthy after 3.2s" || rec["logger"] != "sglaunch" || rec["level"] != slog.LevelInfo.String() {
		t.Errorf("got %v", rec)
	}
	if _, err := New(&b, "yaml"); err == nil {
		t.Error("format yaml: no error")
	}
}

// exitStatus logs as a number through slog.LogValuer, as launcher.ExitStatus does.
type exitStatus int

func (s exitStatus) LogValue() slog.Value { return slog.IntValue(int(s)) }
