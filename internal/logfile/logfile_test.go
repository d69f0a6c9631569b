package logfile

import (
	"os"
	"strings"
	"testing"
)

// TestENOSPCPrintedTwice pins issue 12, defect 14 (logs): a full disk
// cut the server log silently. The first failed write is reported once,
// saying the log is cut; later writes are dropped without another word.
func TestENOSPCPrintedTwice(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	var said []string
	w := New(full, "/dev/full", func(msg string) { said = append(said, msg) })
	for range 3 {
		if n, err := w.Write([]byte("a line\n")); n != 7 || err != nil {
			t.Errorf("Write: %d, %v; want 7, nil", n, err)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "no space left on device") || !strings.Contains(said[0], "the log is cut after 0 bytes") {
		t.Errorf("reported %q, want one line saying the log is cut", said)
	}
	if w.Cut() != said[0] {
		t.Errorf("Cut() = %q", w.Cut())
	}
}
