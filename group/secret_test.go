package group

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSecret(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good", "0123456789abcdef0123456789abcdef\n", 0o600)
	open := file("open", "0123456789abcdef0123456789abcdef", 0o644)
	short := file("short", "abc", 0o600)
	tests := []struct {
		name     string
		env      map[string]string
		profile  string
		insecure bool
		want     string // the secret; "" none
		from     string
		err      string
	}{
		{"variable", map[string]string{SecretVar: " 0123456789abcdef0123456789abcdef "}, good, false, "0123456789abcdef0123456789abcdef", SecretVar, ""},
		{"variable's file", map[string]string{SecretFileVar: good}, "", false, "0123456789abcdef0123456789abcdef", SecretFileVar, ""},
		{"profile's file", nil, good, false, "0123456789abcdef0123456789abcdef", "multinode.secret_file", ""},
		{"none", nil, "", false, "", "", "multinode.insecure_channel"},
		{"none, insecure accepted", nil, "", true, "", "", ""},
		{"short", map[string]string{SecretVar: "abc"}, "", false, "", "", "at least 16"},
		{"short file", nil, short, false, "", "", "at least 16"},
		{"file every user reads", nil, open, false, "", "", "readable by every user"},
		{"missing file", nil, filepath.Join(dir, "nope"), true, "", "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from, err := LoadSecret(func(k string) string { return tt.env[k] }, tt.profile, tt.insecure)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error with %q", err, tt.err)
				}
				if tt.name == "none" && !errors.Is(err, ErrNoSecret) {
					t.Errorf("got %v, want ErrNoSecret", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || !strings.HasPrefix(from, tt.from) {
				t.Errorf("got %q from %q, want %q from %q", got, from, tt.want, tt.from)
			}
		})
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"gpu02":              "gpu02",
		"gpu02\nsglaunch: x": "gpu02?sglaunch: x",
		"a\x1b[2Jb":          "a?[2Jb",
		"bad\xffutf8":        "bad?utf8",
	} {
		if got := clean(in, maxName); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clean(strings.Repeat("x", 500), maxName); len([]rune(got)) != maxName+1 {
		t.Errorf("not cut: %d runes", len([]rune(got)))
	}
}
