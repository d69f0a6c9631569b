package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

func record(id string, started time.Time) *Record {
	r := NewRecord(started)
	r.ID = id
	r.Profile, r.Fingerprint, r.URL = "demo", "0123456789abcdef", "http://127.0.0.1:30000"
	r.Finish(started.Add(time.Minute), nil)
	return r
}

func TestStoreSaveListGet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "records")
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("a store not created yet: got %v, %v; want empty", list, err)
	}
	t0 := time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)
	for i, id := range []string{"ab12cd34", "ab99ee00", "ff000001"} {
		path, err := s.Save(record(id, t0.Add(time.Duration(i)*time.Hour)))
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, t0.Add(time.Duration(i)*time.Hour).Format("20060102T150405Z")+"-"+id+".json"); path != want {
			t.Errorf("saved to %s, want %s", path, want)
		}
	}
	// Leftovers of an interrupted write and other files are not records.
	for _, name := range []string{".x.json.tmp-123", "notes.txt", "20261130T160000Z-ab12cd34.server.log"} {
		os.WriteFile(filepath.Join(dir, name), []byte("junk"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644)

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, ","); got != "broken,ab12cd34,ab99ee00,ff000001" {
		t.Errorf("listed %s, want the broken file first (no time) then the records by start", got)
	}
	if list[0].Err == "" || list[1].Fingerprint != "0123456789abcdef" || list[1].Status != StatusOK {
		t.Errorf("got entries %+v", list)
	}

	tests := []struct {
		ref, want string
		err       error
	}{
		{"ab12cd34", "ab12cd34", nil},
		{"ff", "ff000001", nil},
		{"latest", "ff000001", nil},
		{"20261130T17", "ab99ee00", nil},
		{"ab", "", ErrAmbiguous},
		{"zz", "", ErrNotFound},
		{filepath.Join(dir, "20261130T160000Z-ab12cd34.json"), "ab12cd34", nil},
		{filepath.Join(dir, "missing.json"), "", ErrNotFound},
	}
	for _, tt := range tests {
		r, err := s.Get(tt.ref)
		if tt.err != nil {
			if !errors.Is(err, tt.err) || !inputerr.Is(err) {
				t.Errorf("Get(%q): got %v, want an input error wrapping %v", tt.ref, err, tt.err)
			}
			continue
		}
		if err != nil || r.ID != tt.want {
			t.Errorf("Get(%q): got %v, %v; want %s", tt.ref, r, err, tt.want)
		}
	}
	if _, err := s.Get("ab"); err == nil || !strings.Contains(err.Error(), "ab12cd34, ab99ee00") {
		t.Errorf("ambiguous: got %v, want the candidates listed", err)
	}
}

// TestStoreSaveIsAtomic: a reader sees a whole record or none, and no
// temporary file is left behind.
func TestStoreSaveIsAtomic(t *testing.T) {
	dir := t.TempDir()
	s, _ := OpenStore(dir)
	r := record("0badcafe", time.Now())
	path, err := s.Save(r)
	if err != nil {
		t.Fatal(err)
	}
	r.Error = strings.Repeat("x", 1<<20)
	if _, err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the record", len(entries))
	}
	back, err := Load(path)
	if err != nil || back.Error != r.Error {
		t.Errorf("reloaded record differs: %v", err)
	}
}

// TestRecordsWorldReadable pins issue 12 defect 3: records (which hold
// the server's command line and output) were 0644 in 0755 directories.
func TestRecordsWorldReadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "records")
	s, _ := OpenStore(dir)
	path, err := s.Save(record("0badcafe", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: FileMode, dir: DirMode, filepath.Dir(dir): DirMode} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", p, got, want)
		}
	}
}

func TestStoreRejects(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := OpenStore(file); err == nil || !inputerr.Is(err) {
		t.Errorf("a file as the records directory: got %v, want an input error", err)
	}
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"schema": 99, "id": "x"}`), 0o644)
	if _, err := Load(newer); err == nil || !strings.Contains(err.Error(), "upgrade sglaunch") {
		t.Errorf("a newer record: got %v, want an upgrade hint", err)
	}
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"name": "x"}`), 0o644)
	if _, err := Load(other); err == nil || !strings.Contains(err.Error(), "not a record") {
		t.Errorf("some other JSON: got %v, want not a record", err)
	}
	s, _ := OpenStore(filepath.Join(dir, "none"))
	if _, err := s.Get("latest"); !errors.Is(err, ErrNotFound) {
		t.Errorf("latest of nothing: got %v, want ErrNotFound", err)
	}
}
