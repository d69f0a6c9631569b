package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchListCustomOut pins issue 12, defect 14 (records): `bench list`
// could not list the records `bench --out DIR` wrote. list, show and
// compare read DIR with --dir or --out, after the subcommand or before it.
func TestBenchListCustomOut(t *testing.T) {
	dir := t.TempDir()
	rec := `{"schema":1,"id":"abcd1234","status":"ok","started":"2026-01-01T00:00:00Z","url":"http://x","launched":false,"plan":null,"host":{},"workloads":[]}`
	if err := os.WriteFile(filepath.Join(dir, "20260101T000000Z-abcd1234.json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"bench", "list", "--out", dir},
		{"bench", "list", "--dir", dir},
		{"bench", "--out", dir, "list"},
		{"bench", "show", "--out", dir, "abcd"},
		{"bench", "compare", "--out", dir, "abcd", "abcd"},
	} {
		var stdout, stderr bytes.Buffer
		e := testEnv(&stdout, &stderr)
		elsewhere := t.TempDir() // the state directory: not where the records are
		e.lookupEnv = func(k string) (string, bool) {
			if k == "SGLAUNCH_STATE_DIR" {
				return elsewhere, true
			}
			return "", false
		}
		if code := run(context.Background(), append([]string{"sglaunch"}, args...), e); code != 0 || !strings.Contains(stdout.String(), "abcd1234") {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
}
