package logging

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// journalFile is a file that JOURNAL_STREAM names, as systemd names the
// stream socket it connects a service's stdout and stderr to.
func journalFile(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	return f
}

func readBack(t *testing.T, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJournalPriorities pins B4: under systemd every line reached the
// journal at priority 6, sglaunch's error: and warning: lines included,
// so `journalctl -p warning` showed nothing.
func TestJournalPriorities(t *testing.T) {
	f := journalFile(t)
	if !IsJournal(f) {
		t.Fatal("the file JOURNAL_STREAM names is not the journal")
	}
	log, err := New(f, Text)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("healthy after 3.2s")
	log.Warn("probe failed")
	log.Error("server exited with status 1\nlast 2 lines of server output:\n  Traceback (most recent call last):\n  RuntimeError: x")
	want := "<6>sglaunch: healthy after 3.2s\n" +
		"<4>sglaunch: warning: probe failed\n" +
		"<3>sglaunch: error: server exited with status 1\n" +
		"<3>last 2 lines of server output:\n" +
		"<3>  Traceback (most recent call last):\n" +
		"<3>  RuntimeError: x\n"
	if got := readBack(t, f); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJournalJSON(t *testing.T) {
	f := journalFile(t)
	log, err := New(f, JSON)
	if err != nil {
		t.Fatal(err)
	}
	if !IsJSON(log) {
		t.Error("IsJSON: false for the journal's JSON logger")
	}
	log.With("pid", 7).Error("gone")
	got := readBack(t, f)
	body, ok := strings.CutPrefix(strings.TrimSpace(got), "<3>")
	if !ok {
		t.Fatalf("got %q, want a <3> prefix", got)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		t.Fatalf("not JSON after the prefix: %q: %v", body, err)
	}
	if rec["msg"] != "gone" || rec["logger"] != "sglaunch" || rec["pid"] != float64(7) || rec["level"] != slog.LevelError.String() {
		t.Errorf("got %v", rec)
	}
}

func TestNotJournal(t *testing.T) {
	f := journalFile(t)
	other, err := os.Create(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if IsJournal(other) {
		t.Error("a file JOURNAL_STREAM does not name counts as the journal")
	}
	if got := ForJournal(other, slog.LevelError, "a\nb\n"); got != "a\nb\n" {
		t.Errorf("ForJournal, not the journal: got %q", got)
	}
	if got := ForJournal(f, slog.LevelError, "a\nb\n"); got != "<3>a\n<3>b\n" {
		t.Errorf("ForJournal: got %q", got)
	}
	t.Setenv("JOURNAL_STREAM", "")
	if IsJournal(f) {
		t.Error("journal without JOURNAL_STREAM")
	}
}
