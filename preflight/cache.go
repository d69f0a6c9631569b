package preflight

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"regexp"

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
// STATE/preflight. An entry is used only while the install's location
// and stamp are unchanged, so an editable install that changed under
// the same version is asked again.
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
	return &e, true
}

// store writes an entry; a failure only costs the next run a --help.
func (c *flagCache) store(e *cacheEntry) {
	if c.dir == "" {
		return
	}
	if err := statefile.Write(c.path(e.Version), e); err != nil {
		c.log.Debug("preflight cache: not written", "err", err)
	}
}
