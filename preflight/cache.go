package preflight

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"github.com/sglaunch/sglaunch/catalog"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/statefile"
)

// cacheEntry is what one SGLang install told preflight: its flags (from
// --help, typed from the catalog) and the SGLANG_* names in its sources.
type cacheEntry struct {
	Python   string          `json:"python"`
	Version  string          `json:"version"`
	Location string          `json:"location"`
	Stamp    string          `json:"stamp"` // sizes and mtimes of key files
	Flags    []*catalog.Flag `json:"flags"`
	EnvNames []string        `json:"env_names"`
}

// flagCache keeps one entry per interpreter and SGLang version under
// STATE/preflight, at most cacheEntries of them in all: storing one more
// removes the least recently used (by modification time, which a use
// renews), so that interpreters and versions used in turn keep theirs
// and the directory does not grow without end. An entry is used only
// while the install's location and stamp are unchanged, so an editable
// install that changed under the same version is asked again.
type flagCache struct {
	dir    string // "" when caching is off
	prefix string // sglang-<hash of the interpreter path>-
	log    *slog.Logger
}

func newFlagCache(o *Options, python string) *flagCache {
	c := &flagCache{log: o.Logger}
	if o.StateDir != "" {
		c.dir = filepath.Join(o.StateDir, "preflight")
	}
	sum := sha256.Sum256([]byte(python))
	c.prefix = "sglang-" + hex.EncodeToString(sum[:])[:12] + "-"
	return c
}

// maxCacheBytes bounds a cache entry read: SGLang's flags, typed, with
// their help texts, are a few hundred KB.
const maxCacheBytes = 16 << 20

// cacheEntries bounds the entries kept: a few interpreters (venvs) times
// a few SGLang versions each. An entry is some 100 KB.
const cacheEntries = 16

// cacheNow is the clock a use is stamped with; tests replace it.
var cacheNow = time.Now

var reUnsafe = regexp.MustCompile(`[^A-Za-z0-9.+_-]`)

func (c *flagCache) path(version string) string {
	if version == "" {
		version = "unknown"
	}
	return filepath.Join(c.dir, c.prefix+reUnsafe.ReplaceAllString(version, "_")+".json")
}

// any reports whether anything was cached for this interpreter.
func (c *flagCache) any() bool {
	if c.dir == "" {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(c.dir, c.prefix+"*.json"))
	return len(m) > 0
}

// load returns the entry for the probed install, if it is still current.
func (c *flagCache) load(p hostprobe.Python) (*cacheEntry, bool) {
	if c.dir == "" {
		return nil, false
	}
	path := c.path(p.SGLangVersion)
	var e cacheEntry
	err := statefile.Read(path, maxCacheBytes, &e)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil || len(e.Flags) == 0 {
		c.log.Debug("preflight cache: unreadable entry", "path", path, "err", err)
		return nil, false
	}
	if e.Version != p.SGLangVersion || e.Location != p.SGLangDir || e.Stamp != p.Stamp {
		c.log.Debug("preflight cache: stale entry", "path", path)
		return nil, false
	}
	// A use makes the entry the most recently used; failing to say so
	// only makes it the first to go.
	now := cacheNow()
	_ = os.Chtimes(path, now, now)
	return &e, true
}

// store writes an entry; a failure only costs the next run a --help.
func (c *flagCache) store(e *cacheEntry) {
	if c.dir == "" {
		return
	}
	if err := statefile.Write(c.path(e.Version), e); err != nil {
		c.log.Debug("preflight cache: not written", "err", err)
		return
	}
	now := cacheNow()
	_ = os.Chtimes(c.path(e.Version), now, now)
	c.evict()
}

// evict removes the least recently used entries beyond cacheEntries.
// Another sglaunch evicting at the same time only removes an entry
// twice; one removed under a reader costs that reader a --help.
func (c *flagCache) evict() {
	paths, _ := filepath.Glob(filepath.Join(c.dir, "sglang-*.json"))
	if len(paths) <= cacheEntries {
		return
	}
	type entry struct {
		path string
		used time.Time
	}
	entries := make([]entry, 0, len(paths))
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			entries = append(entries, entry{p, fi.ModTime()})
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range entries[:max(len(entries)-cacheEntries, 0)] {
		if err := os.Remove(e.path); err != nil {
			c.log.Debug("preflight cache: not evicted", "path", e.path, "err", err)
		}
	}
}
