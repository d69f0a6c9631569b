package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStoreReadsSharedRecords: a unit's own state directory sits below
// the host's, whose records the operator's bench wrote; the unit's store
// reads them (serve's benchmarked: line) and writes only its own.
func TestStoreReadsSharedRecords(t *testing.T) {
	shared := t.TempDir()
	op := &Store{Dir: shared}
	rec := &Record{Schema: RecordSchema, ID: "0ffdeb1d", Started: time.Now().UTC(), Status: StatusOK}
	if _, err := op.Save(rec); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(t.TempDir(), "records")
	unit := &Store{Dir: own, Shared: []string{shared, filepath.Join(t.TempDir(), "missing")}}
	entries, err := unit.List()
	if err != nil || len(entries) != 1 || entries[0].ID != rec.ID {
		t.Fatalf("List: %v (%v), want the shared record", entries, err)
	}
	if got, err := unit.Get("latest"); err != nil || got.ID != rec.ID {
		t.Errorf("Get(latest): %v, %v", got, err)
	}
	mine := &Record{Schema: RecordSchema, ID: "1eaf1eaf", Started: time.Now().UTC(), Status: StatusOK}
	path, err := unit.Save(mine)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != own {
		t.Errorf("saved to %s, want the unit's own %s", path, own)
	}
	if _, err := os.Stat(filepath.Join(shared, filepath.Base(path))); !os.IsNotExist(err) {
		t.Errorf("a record was written into the shared directory: %v", err)
	}
}
