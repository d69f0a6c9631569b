package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// staleAfter is how old a temporary file must be before it counts as
// left by a writer that was killed (kill -9 between create and rename):
// a live writer renames its file within moments.
const staleAfter = 10 * time.Minute

// swept remembers the directories this process has swept.
var swept sync.Map

// sweepOnce removes, the first time this process writes into dir, the
// temporary files that Write leaves only when it is killed mid-write
// (".NAME.tmp-*", regular, this user's, older than staleAfter). Nothing
// else is touched.
func sweepOnce(dir string) {
	if _, done := swept.LoadOrStore(dir, true); done {
		return
	}
	removeStale(dir, time.Now().Add(-staleAfter))
}

func removeStale(dir string, before time.Time) (removed int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	uid := os.Geteuid()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp-") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(before) || ownerOf(fi) != uid {
			continue
		}
		if os.Remove(filepath.Join(dir, name)) == nil {
			removed++
		}
	}
	return removed
}
