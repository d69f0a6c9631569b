package tune

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/statefile"
)

// TestRecordFileThroughStatefile pins that the tune record is a state
// file: written whole and private, read back as written, and a record
// that is truncated (a disk that filled), oversized or missing is an
// input error that names the file and says what is wrong.
func TestRecordFileThroughStatefile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tunes", "t1")
	rec := NewRecord(dir, time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	rec.Base, rec.Points = "demo", []*Point{{N: 0, Status: PointOK, Objective: &Estimate{Mean: 10, Lo: 9, Hi: 11, N: 3}}}
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(rec.Path())
	if err != nil || fi.Mode().Perm() != statefile.FileMode {
		t.Fatalf("stat %s: %v, mode %v; want %v", rec.Path(), err, fi.Mode().Perm(), statefile.FileMode)
	}
	back, err := Load(dir)
	if err != nil || back.Base != "demo" || back.Points[0].Objective.Mean != 10 || back.Dir() != dir {
		t.Fatalf("Load = %+v, %v; want the record saved", back, err)
	}
	whole, err := os.ReadFile(rec.Path())
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		write  func(path string) error // nil: no file
		wantIs error
		wantIn string
	}{
		{"truncated", func(p string) error { return os.WriteFile(p, whole[:len(whole)/2], 0o600) }, nil,
			"not a tune record (truncated, or not written by sglaunch tune): read "},
		{"oversized", func(p string) error {
			if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
				return err
			}
			return os.Truncate(p, maxRecordBytes+1) // sparse: no 64 MiB written
		}, statefile.ErrTooLarge, "more than the 64 MiB a file may hold"},
		{"missing", nil, nil, "no tune record there (tune.json)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "t2")
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.write != nil {
				if err := tt.write(filepath.Join(d, RecordFile)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(d)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if !inputerr.Is(err) || !strings.Contains(err.Error(), d) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got %q (input error: %v), want an input error naming %s and holding %q", err, inputerr.Is(err), d, tt.wantIn)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v, want errors.Is %v", err, tt.wantIs)
			}
		})
	}
}
