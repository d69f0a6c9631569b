package launcher

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/logfile"
	"github.com/sglaunch/sglaunch/internal/tail"
	"github.com/sglaunch/sglaunch/internal/testkit"
)

// writes records each Write separately.
type writes struct {
	mu  sync.Mutex
	all [][]byte
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, bytes.Clone(p))
	return len(p), nil
}

func (w *writes) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, b := range w.all {
		out = append(out, string(b))
	}
	return out
}

func TestRelayLines(t *testing.T) {
	r, w, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	dst := &writes{}
	var seen []string
	var mu sync.Mutex
	o := &output{tail: &tail.Buffer{}, observe: func(b []byte) {
		mu.Lock()
		seen = append(seen, string(b))
		mu.Unlock()
	}}
	o.relayLines(r, dst)

	// A line written in two parts goes out whole.
	w.Write([]byte("first "))
	w.Write([]byte("line\nsecond li"))
	testkit.WaitFor(t, launchTimeout, "the first line", func() bool { return len(dst.get()) >= 1 })
	if got := dst.get()[0]; got != "first line\n" {
		t.Errorf("first write: got %q, want %q", got, "first line\n")
	}
	// An unfinished line (a progress bar) is not held back for long.
	testkit.WaitFor(t, launchTimeout, "the partial line", func() bool { return len(dst.get()) >= 2 })
	if got := dst.get()[1]; got != "second li" {
		t.Errorf("partial line: got %q, want %q", got, "second li")
	}
	w.Write([]byte("ne\nlast without newline"))
	w.Close()
	o.drain(time.Minute)
	if got, want := strings.Join(dst.get(), ""), "first line\nsecond line\nlast without newline"; got != want {
		t.Errorf("relayed: got %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(seen, ""); got != "first line\nsecond line\nlast without newline" {
		t.Errorf("observed: got %q", got)
	}
}

func TestLogFileGetsWholeLinesFromBothStreams(t *testing.T) {
	path := t.TempDir() + "/log"
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	o := &output{tail: &tail.Buffer{}, file: &lockedFile{f: f, w: logfile.New(f, f.Name(), nil)}}
	var ws []*os.File
	for range 2 {
		r, w, err := pipe()
		if err != nil {
			t.Fatal(err)
		}
		o.relayLines(r, &writes{})
		ws = append(ws, w)
	}
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := strings.Repeat(string(rune('a'+i)), 100) + "\n"
			for range 2000 {
				// Half a line at a time: whole lines must still land in the file.
				w.Write([]byte(line[:50]))
				w.Write([]byte(line[50:]))
			}
			w.Close()
		}()
	}
	wg.Wait()
	o.drain(time.Minute)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4000 {
		t.Fatalf("got %d lines, want 4000", len(lines))
	}
	for _, l := range lines {
		if l != strings.Repeat("a", 100) && l != strings.Repeat("b", 100) {
			t.Fatalf("mixed line %q", l)
		}
	}
}
