package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/health"
)

// TestShowPhasesInOrder pins issue 24: bench show listed the load's
// phases as stored, out of the order they happened.
func TestShowPhasesInOrder(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := bench.NewRecord(start)
	rec.Server = &bench.ServerStart{Load: health.Load{StartedAt: start, ReadyAt: start.Add(4 * time.Second), Seconds: 4,
		Phases: []health.Phase{{Name: "port bound", At: 3 * time.Second}, {Name: "loading weights", At: time.Second}, {Name: "warm-up done", At: 3500 * time.Millisecond}}}}
	var b bytes.Buffer
	if err := WriteShow(&b, rec); err != nil {
		t.Fatal(err)
	}
	want := "(loading weights 1.0s, port bound 3.0s, warm-up done 3.5s)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("load time line: want %q in\n%s", want, b.String())
	}
}
