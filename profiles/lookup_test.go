package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSearchOrder(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	write(t, second, "demo.yaml", "description: second\nargs: {model-path: /m}\n")
	f := &Finder{Dirs: []string{first, second}}
	p, err := f.Load("demo")
	if err != nil {
		t.Fatal(err)
	}
	if p.Description != "second" || p.Source != filepath.Join(second, "demo.yaml") {
		t.Errorf("got %q from %s, want the second dir's file", p.Description, p.Source)
	}
	write(t, first, "demo.yml", "description: first\nargs: {model-path: /m}\n")
	if p, _ = f.Load("demo"); p.Description != "first" {
		t.Errorf("got %q, want the first dir to win", p.Description)
	}
	p, err = (&Finder{}).Load("demo")
	if err != nil || p.Source != BuiltinSource {
		t.Errorf("got %v, %v; want the built-in", p, err)
	}
	list := f.List()
	var shadowed int
	for _, l := range list {
		if l.Name == "demo" && l.ShadowedBy != "" {
			shadowed++
		}
	}
	if shadowed != 2 {
		t.Errorf("got %d shadowed demo entries, want 2 (second dir, built-in): %+v", shadowed, list)
	}
}

func TestSearchDirs(t *testing.T) {
	env := map[string]string{"HOME": "/home/op"}
	got := SearchDirs("/a:/b", func(k string) string { return env[k] })
	want := "/a /b /home/op/.config/sglaunch/profiles /etc/sglaunch/profiles"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
	env["XDG_CONFIG_HOME"] = "/xdg"
	if got := SearchDirs("", func(k string) string { return env[k] }); got[0] != "/xdg/sglaunch/profiles" {
		t.Errorf("got %q, want XDG_CONFIG_HOME first", got)
	}
}

func TestNotFound(t *testing.T) {
	dir := t.TempDir()
	_, err := (&Finder{Dirs: []string{dir}}).Load("kimi")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
	for _, want := range []string{`profile "kimi"`, dir, "the built-ins", "did you mean kimi-k2.5-int4-eagle3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = (&Finder{}).Load("deom")
	if err == nil || !strings.Contains(err.Error(), "did you mean demo") {
		t.Errorf("got %v, want a suggestion of demo", err)
	}
	_, err = (&Finder{}).Load("./nope.yaml")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("got %v, want not found naming the file", err)
	}
}

func TestExtends(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "base.yaml", "env: {NCCL_ALGO: Ring, NCCL_PROTO: LL}\nargs:\n  model-path: /m\n  tp: 8\n  trust-remote-code: true\nserve:\n  args: {host: 0.0.0.0}\nhealth: {interval: 5s}\n")
	write(t, dir, "mid.yaml", "extends: base\nenv: {NCCL_PROTO: ~}\nargs:\n  tp: 4\n  trust-remote-code: false\n  dp: 2\n")
	write(t, dir, "top.yaml", "extends: mid\nargs: {mem-fraction-static: 0.9}\n")
	p, err := (&Finder{Dirs: []string{dir}}).Load("top")
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, e := range p.Args {
		args = append(args, e.Name+"="+e.Value.String()+"("+e.Value.From+")")
	}
	want := "model-path=/m(extends base) tp=4(extends mid) dp=2(extends mid) mem-fraction-static=0.9(profile)"
	if got := strings.Join(args, " "); got != want {
		t.Errorf("args:\n got %s\nwant %s", got, want)
	}
	if len(p.Env) != 1 || p.Env[0].Name != "NCCL_ALGO" {
		t.Errorf("env: got %+v, want only NCCL_ALGO (NCCL_PROTO removed by null)", p.Env)
	}
	if v := p.Settings["health.interval"]; v.Text != "5s" || v.From != "extends base" {
		t.Errorf("health.interval: got %q from %q", v.Text, v.From)
	}
	if e, ok := p.Serve.Args.Get("host"); !ok || e.Value.Text != "0.0.0.0" {
		t.Errorf("serve overlay not inherited: %+v", p.Serve.Args)
	}
	if got := strings.Join(p.Chain, " <- "); !strings.Contains(got, "base") || !strings.Contains(got, "mid") {
		t.Errorf("chain: got %q", got)
	}
}

func TestExtendsErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", "extends: b\n")
	write(t, dir, "b.yaml", "extends: a\n")
	write(t, dir, "orphan.yaml", "args: {}\nextends: nobody\n")
	write(t, dir, "self.yaml", "extends: self\n")
	write(t, dir, "misnamed.yaml", "name: other\n")
	f := &Finder{Dirs: []string{dir}}
	tests := []struct{ ref, want string }{
		{"a", "extends: cycle: a ("},
		{"orphan", filepath.Join(dir, "orphan.yaml") + `:2:1: extends: parent profile "nobody": profile not found`},
		{"self", `profile "self": profile not found`},
		{"misnamed", "declares name \"other\"; rename the file to other.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			_, err := f.Load(tt.ref)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// A site file may extend the built-in of its own name to tune it.
func TestExtendsOwnNameReachesBuiltin(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "kimi-k2.5-int4-eagle3.yaml", "extends: kimi-k2.5-int4-eagle3\nenv: {NCCL_NTHREADS: 256}\n")
	p, err := (&Finder{Dirs: []string{dir}}).Load("kimi-k2.5-int4-eagle3")
	if err != nil {
		t.Fatal(err)
	}
	e, _ := p.Env.Get("NCCL_NTHREADS")
	if e.Value.Text != "256" || len(p.Args) != 12 {
		t.Errorf("got NCCL_NTHREADS=%s and %d args, want 256 and the built-in's 12", e.Value.Text, len(p.Args))
	}
}

func TestShowRoundTrips(t *testing.T) {
	for _, name := range builtinNames() {
		t.Run(name, func(t *testing.T) {
			p, err := (&Finder{}).Load(name)
			if err != nil {
				t.Fatal(err)
			}
			out := p.YAML()
			q, err := Parse("show", []byte(out))
			if err != nil {
				t.Fatalf("profiles show output does not parse: %v\n%s", err, out)
			}
			if len(q.Args) != len(p.Args) || len(q.Env) != len(p.Env) || q.Extends != "" {
				t.Errorf("round trip lost values:\n%s", out)
			}
			if !strings.Contains(out, "mem-fraction-static: 0.88") || !strings.Contains(out, "NCCL_BUFFSIZE: 16777216") {
				t.Errorf("scalars not as written:\n%s", out)
			}
		})
	}
}

// The bench package decodes bench.workloads; its errors must name the
// file the node was written in, which extends can put up the chain.
func TestExtendsWorkloadsFile(t *testing.T) {
	dir := t.TempDir()
	base := write(t, dir, "base.yaml", "args: {model-path: /m}\nbench:\n  workloads: [decode-1]\n")
	write(t, dir, "mid.yaml", "extends: base\nbench:\n  args: {tp: 2}\n")
	write(t, dir, "top.yaml", "extends: mid\n")
	own := write(t, dir, "own.yaml", "extends: mid\nbench:\n  workloads: [sweep]\n")
	tests := []struct{ ref, want string }{
		{"base", base},
		{"top", base},
		{"own", own},
		{"demo", ""},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p, err := (&Finder{Dirs: []string{dir}}).Load(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Bench.WorkloadsFile; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if (p.Bench.Workloads != nil) != (tt.want != "") {
				t.Errorf("workloads node: got %v, want one only with a file", p.Bench.Workloads)
			}
		})
	}
}
