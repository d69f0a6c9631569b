package preflight

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
)

// fakeCacheClock moves a second at every look, so that each use is later
// than the last whatever the file system's time resolution.
func fakeCacheClock(t *testing.T) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := cacheNow
	cacheNow = func() time.Time { now = now.Add(time.Second); return now }
	t.Cleanup(func() { cacheNow = old })
}

func cacheFor(state, python string) *flagCache {
	return newFlagCache(&Options{StateDir: state, Logger: slog.New(slog.DiscardHandler)}, python)
}

func storeEntry(c *flagCache, python, version string) {
	c.store(&cacheEntry{Python: python, Version: version, Location: "/site/sglang", Stamp: "s",
		Flags: []*catalog.Flag{{Name: "--port"}}})
}

func loads(c *flagCache, version string) bool {
	_, ok := c.load(hostprobe.Python{SGLangVersion: version, SGLangDir: "/site/sglang", Stamp: "s"})
	return ok
}

// TestFlagCacheTwoInterpreters: two interpreters used in turn both keep
// their entries (each alternation a cached preflight).
func TestFlagCacheTwoInterpreters(t *testing.T) {
	fakeCacheClock(t)
	state := t.TempDir()
	a, b := cacheFor(state, "/venv-a/bin/python3"), cacheFor(state, "/venv-b/bin/python3")
	storeEntry(a, "/venv-a/bin/python3", "0.5.0")
	storeEntry(b, "/venv-b/bin/python3", "0.5.1")
	for i := range 4 {
		if !loads(a, "0.5.0") || !loads(b, "0.5.1") {
			t.Fatalf("turn %d: an interpreter's entry is gone", i)
		}
	}
}

// TestFlagCacheEvictsLeastRecentlyUsed: the cache is bounded, and what
// goes is the entry used longest ago, not one just used.
func TestFlagCacheEvictsLeastRecentlyUsed(t *testing.T) {
	fakeCacheClock(t)
	state := t.TempDir()
	a := cacheFor(state, "/venv-a/bin/python3")
	for i := range cacheEntries {
		storeEntry(a, "/venv-a/bin/python3", fmt.Sprintf("0.%d.0", i))
	}
	if !loads(a, "0.0.0") { // the oldest stored, now the most recently used
		t.Fatal("entry 0.0.0 not cached")
	}
	b := cacheFor(state, "/venv-b/bin/python3")
	storeEntry(b, "/venv-b/bin/python3", "0.9.9")
	files, _ := filepath.Glob(filepath.Join(state, "preflight", "sglang-*.json"))
	if len(files) != cacheEntries {
		t.Errorf("got %d entries, want the bound %d", len(files), cacheEntries)
	}
	if !loads(a, "0.0.0") || !loads(b, "0.9.9") {
		t.Error("a recently used or the new entry was evicted")
	}
	if loads(a, "0.1.0") {
		t.Error("the least recently used entry (0.1.0) was kept")
	}
	if _, err := os.Stat(a.path("0.2.0")); err != nil {
		t.Errorf("entry 0.2.0: %v; only one entry should go", err)
	}
}
