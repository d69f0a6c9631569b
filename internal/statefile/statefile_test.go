package statefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

type entry struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

func TestWriteThenRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "launches")
	path := filepath.Join(dir, "demo.json")
	want := entry{Name: "demo", Count: 3}
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	var got entry
	if err := Read(path, 1<<10, &got); err != nil || got != want {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, want)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), "\n  \"count\": 3") {
		t.Errorf("file %q: want indented JSON with a final newline", b)
	}
	for p, mode := range map[string]fs.FileMode{path: FileMode, dir: DirMode, filepath.Dir(dir): DirMode} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
		}
	}
}

// TestReadRefuses: what Read will not decode is refused with an error
// that names the file.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big, _ := json.Marshal(entry{Name: strings.Repeat("x", 200)})
	tests := []struct {
		name      string
		path      string
		wantIs    error
		wantInput bool
		wantIn    string
	}{
		{"missing", filepath.Join(dir, "none.json"), fs.ErrNotExist, false, "none.json"},
		{"oversize", file("big.json", string(big)), ErrTooLarge, true, "more than the 100 bytes a file may hold"},
		{"directory", dir, nil, true, "not a regular file"},
		{"not JSON", file("bad.json", "{not json"), nil, false, "invalid character"},
		{"wrong shape", file("shape.json", `{"count": "three"}`), nil, false, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e entry
			err := Read(tt.path, 100, &e)
			if err == nil {
				t.Fatalf("Read(%s) = nil, want an error", tt.path)
			}
			if !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got %q, want it to name %s and hold %q", err, tt.path, tt.wantIn)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v, want errors.Is %v", err, tt.wantIs)
			}
			if inputerr.Is(err) != tt.wantInput {
				t.Errorf("inputerr.Is = %v, want %v", inputerr.Is(err), tt.wantInput)
			}
		})
	}
}
