package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStaleTempFilesRemoved pins issue 22: a kill -9 during a record's
// write left its ".NAME.tmp-*" file, and nothing ever removed it. The
// first write into a directory removes such files once they are older
// than any live writer's; other files, and young temporaries (a writer
// at work), stay.
func TestStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	files := map[string]bool{ // name: removed
		".rec.json.tmp-123": true,
		".state.json.tmp-9": true,
		".young.json.tmp-1": false,
		"rec.json":          false,
		".hidden":           false,
		"notes.tmp-1":       false,
	}
	for name := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".young.json.tmp-1" {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := Write(filepath.Join(dir, "new.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
}
