//go:build unix

package loadgen

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

func TestRaiseFileLimit(t *testing.T) {
	tests := []struct {
		name     string
		cur, max uint64
		setErr   error
		streams  int
		wantSet  uint64 // the soft limit asked for; 0: none asked
		wantWarn string // in the warning; "" for none
	}{
		{"room already", 4096, 4096, nil, 2048, 0, ""},
		{"raised within the hard limit", 1024, 20000, nil, 8192, 8192 + fdReserve, ""},
		{"the hard limit binds: no call", 4095, 4096, nil, 8192, 0, "the limit is 4095 (hard limit 4096): at most about 4031 streams"},
		{"raising refused", 1024, 20000, errors.New("EPERM"), 8192, 8192 + fdReserve, "the limit is 1024"},
		{"no streams", 16, 16, nil, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldGet, oldSet := getrlimit, setrlimit
			t.Cleanup(func() { getrlimit, setrlimit = oldGet, oldSet })
			var asked uint64
			getrlimit = func(l *syscall.Rlimit) error { l.Cur, l.Max = tt.cur, tt.max; return nil }
			setrlimit = func(l *syscall.Rlimit) error { asked = l.Cur; return tt.setErr }
			got := raiseFileLimit(tt.streams)
			if asked != tt.wantSet {
				t.Errorf("asked for a soft limit of %d, want %d", asked, tt.wantSet)
			}
			if (tt.wantWarn == "") != (got == "") || !strings.Contains(got, tt.wantWarn) {
				t.Errorf("got warning %q, want one containing %q", got, tt.wantWarn)
			}
		})
	}
}

// TestProgressSaysFileLimit: a level held back by the limit on open files
// says so where its progress shows.
func TestProgressSaysFileLimit(t *testing.T) {
	var out strings.Builder
	p := &Progress{W: &out, Prefix: "wide"}
	c := &Counters{Label: "c=8192", Warning: "8192 streams need about 8256 open files"}
	p.LevelStart(c)
	p.LevelEnd(c, LevelResult{})
	if want := "wide c=8192: warning: 8192 streams need about 8256 open files\n"; !strings.Contains(out.String(), want) {
		t.Errorf("got %q, want it to contain %q", out.String(), want)
	}
}
