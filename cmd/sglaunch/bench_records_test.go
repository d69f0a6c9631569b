package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/tune"
)

// TestBenchListCustomOut pins issue 12, defect 14 (records): `bench list`
// could not list the records `bench --out DIR` wrote. list, show and
// compare read DIR with --dir, after the subcommand or before it; --out
// DIR, the old spelling, still works there and warns.
func TestBenchListCustomOut(t *testing.T) {
	dir := recordsDirWithOne(t)
	for _, tt := range []struct {
		args     []string
		wantWarn bool
	}{
		{[]string{"bench", "list", "--out", dir}, true},
		{[]string{"bench", "list", "--dir", dir}, false},
		{[]string{"bench", "--out", dir, "list"}, true},
		{[]string{"bench", "--dir", dir, "list"}, false},
		{[]string{"bench", "show", "--out", dir, "abcd"}, true},
		{[]string{"bench", "show", "--dir", dir, "abcd"}, false},
		{[]string{"bench", "compare", "--out", dir, "abcd", "abcd"}, true},
	} {
		stdout, stderr, code := runElsewhere(t, tt.args...)
		if code != 0 || !strings.Contains(stdout, "abcd1234") {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(tt.args, " "), code, stdout, stderr)
		}
		if warned := strings.Contains(stderr, "write --dir "+dir); warned != tt.wantWarn {
			t.Errorf("%s: deprecation warning %v, want %v\n%s", strings.Join(tt.args, " "), warned, tt.wantWarn, stderr)
		}
	}
}

// TestOutIsTheFileWritten: -o/--out names the one file a command writes,
// also under bench, whose records directory is --dir (or, on bench
// before the subcommand, the old --out DIR), and tune report, whose
// --output is the older spelling as bench report's.
func TestOutIsTheFileWritten(t *testing.T) {
	dir, tuneDir := recordsDirWithOne(t), tuneDirWithBaseline(t)
	for _, args := range [][]string{
		{"tune", "report", tuneDir, "-o", "FILE"},
		{"tune", "report", "--output", "FILE", tuneDir},
		{"bench", "report", "--dir", dir, "-o", "FILE", "abcd"},
		{"bench", "--dir", dir, "report", "--out", "FILE", "abcd"},
		{"bench", "--out", dir, "report", "--output", "FILE", "abcd"},
		{"bench", "--dir", dir, "export", "-o", "FILE", "abcd"},
	} {
		file := filepath.Join(t.TempDir(), "written")
		for i, a := range args {
			if a == "FILE" {
				args[i] = file
			}
		}
		stdout, stderr, code := runElsewhere(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
			continue
		}
		if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() || stdout != "" {
			t.Errorf("%s: got %v and stdout %q; want the file written, nothing on stdout", strings.Join(args, " "), err, stdout)
		}
	}
}

// tuneDirWithBaseline is a tune's directory whose record holds its
// baseline, measured.
func tuneDirWithBaseline(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t1")
	rec := tune.NewRecord(dir, time.Now())
	rec.Points = []*tune.Point{{Status: tune.PointOK, Objective: &tune.Estimate{Mean: 10, Lo: 9, Hi: 11, N: 3}}}
	if err := rec.Save(time.Now()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordsDirWithOne is a records directory with one record, abcd1234.
func recordsDirWithOne(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	rec := `{"schema":1,"id":"abcd1234","status":"ok","started":"2026-01-01T00:00:00Z","url":"http://x","launched":false,"plan":null,"host":{},"workloads":[]}`
	if err := os.WriteFile(filepath.Join(dir, "20260101T000000Z-abcd1234.json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runElsewhere runs sglaunch with a state directory that is not where
// the test's records are.
func runElsewhere(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := testEnv(&out, &errOut)
	elsewhere := t.TempDir()
	e.lookupEnv = func(k string) (string, bool) {
		if k == "SGLAUNCH_STATE_DIR" {
			return elsewhere, true
		}
		return "", false
	}
	code = run(context.Background(), append([]string{"sglaunch"}, args...), e)
	return out.String(), errOut.String(), code
}
