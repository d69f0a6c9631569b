package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnitMainPID: systemctl runs through childproc (bounded, its group
// killed), and its answer maps to a pid, ErrGone, or an error carrying
// what systemctl said.
func TestUnitMainPID(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		want    int
		wantErr error
		wantIn  string
	}{
		{"running", "echo 4242", 4242, nil, ""},
		{"stopped", "echo 0", 0, ErrGone, "has no main process"},
		{"no bus", "echo 'Failed to connect to bus' >&2; exit 1", 0, nil, "Failed to connect to bus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "systemctl"), []byte("#!/bin/sh\n"+tt.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			got, err := unitMainPID(t.Context(), "demo.service")
			if got != tt.want {
				t.Errorf("pid: got %d, want %d", got, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err: got %v, want %v", err, tt.wantErr)
			}
			if tt.wantIn == "" && err != nil || tt.wantIn != "" && (err == nil || !strings.Contains(err.Error(), tt.wantIn)) {
				t.Errorf("err: got %v, want one holding %q", err, tt.wantIn)
			}
		})
	}
}
