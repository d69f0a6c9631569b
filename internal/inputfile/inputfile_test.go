package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	os.WriteFile(small, []byte("a: 1\n"), 0o600)
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte(strings.Repeat("x\n", 10)), 0o600)
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(small, 100); err != nil || string(data) != "a: 1\n" {
		t.Errorf("small: %q, %v", data, err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Read(big, 7); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "big.yaml:1:1: ") {
		t.Errorf("big: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(fifo, 100); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a named pipe") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a named pipe hangs")
	}
	if _, err := Read("/dev/zero", 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := Read(dir, 100); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "a directory") {
		t.Errorf("directory: %v", err)
	}
	// A /proc file has size 0 and is still cut at the limit.
	if _, err := Read("/proc/self/maps", 16); !errors.Is(err, ErrTooLarge) {
		t.Errorf("/proc/self/maps: %v", err)
	}
}
