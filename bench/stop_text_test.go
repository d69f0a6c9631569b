package bench

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/launcher"
)

// TestStopTextCleanDrain pins issue 24: bench show said "exit status 137
// (SIGKILL)" for a server that drained and ended by itself (SGLang
// SIGKILLs its own tree after the drain), which read as a kill.
func TestStopTextCleanDrain(t *testing.T) {
	tests := []struct {
		name   string
		status launcher.ExitStatus
		err    error
		want   string
	}{
		{"drained, SGLang's own SIGKILL", 137, nil, "stopped by sglaunch: drained and ended by itself (exit status 137 (SIGKILL), SGLang's own end of its process tree)"},
		{"drained, status 0", 0, nil, "stopped by sglaunch: drained and ended by itself (exit status 0)"},
		{"killed after stop_timeout", 137, fmt.Errorf("%w: it did not stop within 30s", launcher.ErrKilled), "stopped by sglaunch: it did not stop within stop_timeout and was killed (exit status 137 (SIGKILL))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stopText(tt.status, tt.err); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestShowPhasesInOrder pins issue 24: bench show listed the load's
// phases as stored, out of the order they happened.
func TestShowPhasesInOrder(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := NewRecord(start)
	rec.Server = &ServerStart{Load: health.Load{StartedAt: start, ReadyAt: start.Add(4 * time.Second), Seconds: 4,
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
