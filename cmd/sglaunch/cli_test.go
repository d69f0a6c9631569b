package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordsFixture writes two records with the README's IDs, as bench
// would, and returns the state directory and the records directory.
func recordsFixture(t *testing.T) (state, records string) {
	t.Helper()
	state = t.TempDir()
	records = filepath.Join(state, "records")
	if err := os.MkdirAll(records, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"56ab52eb", "991816ca"} {
		rec := `{"schema":1,"id":"` + id + `","status":"ok","started":"2026-01-01T00:00:0` + string(rune('0'+i)) + `Z","url":"http://127.0.0.1:30000","launched":false,"plan":null,"host":{},"workloads":[]}`
		name := "20260101T00000" + string(rune('0'+i)) + "Z-" + id + ".json"
		if err := os.WriteFile(filepath.Join(records, name), []byte(rec), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return state, records
}

// TestOptionsAfterArguments pins issue 24, item 1: urfave stops at the
// first positional argument, so the README's own `bench report ID ID -o
// report.html` read -o as a record. Every command that takes arguments
// takes its options before or after them; -- ends the options.
func TestOptionsAfterArguments(t *testing.T) {
	state, records := recordsFixture(t)
	vars := map[string]string{"SGLAUNCH_STATE_DIR": state}
	html := filepath.Join(t.TempDir(), "report.html")
	tests := []struct {
		name  string
		args  []string
		codes []int  // accepted exit statuses
		want  string // in stdout
	}{
		{"bench report", []string{"bench", "report", "56ab", "9918", "-o", html}, []int{0}, ""},
		{"bench report, -o between", []string{"bench", "report", "56ab", "-o", html, "9918"}, []int{0}, ""},
		{"bench export", []string{"bench", "export", "56ab52eb", "--format", "bench-serving"}, []int{0}, ""},
		{"bench show", []string{"bench", "show", "56ab52eb", "--json"}, []int{0}, `"id": "56ab52eb"`},
		{"bench show, --dir after", []string{"bench", "show", "56ab52eb", "--dir", records}, []int{0}, "56ab52eb"},
		{"bench compare", []string{"bench", "compare", "56ab52eb", "991816ca", "--fail-if-slower", "3"}, []int{0}, "991816ca"},
		{"bench compare, --json between", []string{"bench", "compare", "56ab52eb", "--json", "991816ca"}, []int{0}, `"b": "991816ca"`},
		{"diff", []string{"diff", "demo", "kimi-k2.5-int4-eagle3", "--json"}, []int{0, 1}, "{"},
		{"profiles show", []string{"profiles", "show", "demo", "-h"}, []int{0}, "profiles show"},
		{"-- ends the options", []string{"config", "--json", "--profile", "demo", "--", "--log-level", "debug"}, []int{0}, `"--log-level"`},
	}
	t.Run("table", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				code, stdout, stderr := cliRun(t, vars, tt.args...)
				ok := false
				for _, c := range tt.codes {
					ok = ok || c == code
				}
				if !ok || !strings.Contains(stdout, tt.want) {
					t.Errorf("sglaunch %s: exit %d (want %v), stdout %q want %q\nstderr: %s", strings.Join(tt.args, " "), code, tt.codes, firstLine(stdout), tt.want, stderr)
				}
			})
		}
	})
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("bench report -o after the IDs wrote no page: %v", err)
	}
}

// TestEveryTypoAnswered pins issue 24, item 2: each mistake a newcomer
// made exits 2 with a message that names the problem and the fix.
func TestEveryTypoAnswered(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"subcommand typo", []string{"bench", "comapre", "a", "b"}, []string{`unknown bench command "comapre"`, "did you mean compare?"}},
		{"profiles typo exited 3", []string{"profiles", "shwo", "demo"}, []string{`unknown profiles command "shwo"`, "did you mean show?"}},
		{"command typo", []string{"confgi", "--profile", "demo"}, []string{`unknown command "confgi"`, "did you mean config?"}},
		{"help of an unknown command", []string{"help", "bnech"}, []string{`unknown command "bnech"`, "did you mean bench?"}},
		{"help of a subcommand typo", []string{"bench", "help", "comapre"}, []string{`unknown bench command "comapre"`, "did you mean compare?", "bench commands: list, show, compare"}},
		{"help of a subcommand typo, from the top", []string{"help", "bench", "comapre"}, []string{`unknown bench command "comapre"`, "did you mean compare?"}},
		{"help of a profiles typo", []string{"profiles", "help", "shwo"}, []string{`unknown profiles command "shwo"`, "did you mean show?"}},
		{"help of a name near none", []string{"bench", "help", "nosuch"}, []string{`unknown bench command "nosuch" (bench commands: list, show, compare, export, report; see ` + "`sglaunch bench --help`)"}},
		{"option before the command", []string{"--profile", "demo", "serve"}, []string{"--profile is an option of the command", "sglaunch serve --profile demo"}},
		{"option without a command", []string{"--profile", "demo"}, []string{"--profile is an option of a command", "serve"}},
		{"profile as an argument", []string{"config", "demo"}, []string{`unexpected argument "demo"`, "sglaunch config --profile demo"}},
		{"flag typo", []string{"serve", "--dryrun", "--profile", "demo"}, []string{"unknown flag --dryrun", "did you mean --dry-run?", "usage: sglaunch serve"}},
		{"workloads with a comma", []string{"bench", "--profile", "demo", "-w", "decode-1,sweep"}, []string{"one workload per option", "-w decode-1 -w sweep"}},
		{"list flag with commas", []string{"config", "--profile", "demo", "--set", "args.cuda-graph-bs=1,2,4"}, []string{"takes a list of numbers", "--set 'args.cuda-graph-bs=[1, 2, 4]'"}},
		{"too many arguments", []string{"bench", "show", "a", "b"}, []string{"want one record ID", "usage: sglaunch bench show [options] ID"}},
		{"argument to a command that takes none", []string{"bench", "list", "x"}, []string{`unexpected argument "x"`, "usage: sglaunch bench list"}},
		{"option without its value", []string{"config", "--profile"}, []string{"flag needs an argument: --profile", "usage: sglaunch config [options]"}},
		{"option with a bad number", []string{"bench", "compare", "a", "b", "--fail-if-slower", "abc"}, []string{`invalid value "abc" for flag --fail-if-slower`, "usage: sglaunch bench compare [options] A B"}},
		{"unknown flag of a subcommand", []string{"bench", "list", "--profile", "demo"}, []string{"unknown flag --profile", "see `sglaunch bench list --help`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cliRun(t, nil, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestMistypedFlagValue pins issue 24's `tp: eight`: preflight named the
// fix, but config and serve --dry-run printed the plan as good. Every
// command that resolves a plan refuses it, at the value's file:line:col;
// preflight lists it among its findings.
func TestMistypedFlagValue(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "eight.yaml")
	if err := os.WriteFile(profile, []byte("name: eight\nextends: demo\nargs:\n  tp: eight\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := profile + `:4:7: args.tp: --tp takes an integer, not "eight"`
	tests := []struct {
		name string
		args []string
		code int
		want []string // in stdout + stderr
	}{
		{"config", []string{"config", "--profile", profile}, 2, []string{refused, "; write tp: 8"}},
		{"serve --dry-run", []string{"serve", "--profile", profile, "--dry-run"}, 2, []string{refused, "; write tp: 8"}},
		{"unit", []string{"unit", "--profile", profile}, 2, []string{refused}},
		{"config --set", []string{"config", "--profile", "demo", "--set", "args.tp=eight"}, 2, []string{"--set args.tp: --tp takes an integer", "write --set args.tp=8"}},
		{"preflight", []string{"preflight", "--profile", profile, "--catalog"}, 1, []string{"FAIL  --tp", "fix: write --tp 8", "from: args.tp at " + profile + ":4:3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cliRun(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
}

// TestHelpAtEveryLevel pins issue 24: `sglaunch help` was an unknown
// command although `bench help compare` worked.
func TestHelpAtEveryLevel(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "sglaunch - launch, supervise"},
		{[]string{"help", "bench"}, "sglaunch bench - benchmark"},
		{[]string{"help", "bench", "compare"}, "sglaunch bench compare - compare"},
		{[]string{"bench", "help", "compare"}, "sglaunch bench compare - compare"},
		{[]string{"profiles", "help", "show"}, "sglaunch profiles show - print"},
		{[]string{"bench", "compare", "--help"}, "EXIT STATUS:"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cliRun(t, nil, tt.args...)
			if code != 0 || !strings.Contains(stdout, tt.want) {
				t.Errorf("exit %d, want 0 with %q:\n%s%s", code, tt.want, stdout, stderr)
			}
		})
	}
}

// TestNothingSilent pins issue 24, item 3: each of these did nothing and
// said nothing, with exit 0.
func TestNothingSilent(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		args []string
		code int
		want string // in stdout + stderr
	}{
		{"--unset of a flag the plan lacks", nil, []string{"config", "--profile", "demo", "--unset", "args.nonexistent"}, 2, "the plan has no flag --nonexistent to remove"},
		{"lower-case NCCL name", nil, []string{"preflight", "--profile", "demo", "--set", "env.nccl_proto=LL"}, 0, "WARN  nccl_proto"},
		{"a records directory that is not there", nil, []string{"bench", "list", "--dir", "/nonexistent"}, 2, "--dir /nonexistent: no records directory there"},
		{"an account that does not exist", nil, []string{"unit", "--profile", "demo", "--user", "nosuch-sglang"}, 2, "--user nosuch-sglang: no such account on this host"},
		{"a state directory the service will not see", map[string]string{"SGLAUNCH_STATE_DIR": "/srv/state"}, []string{"unit", "--profile", "demo"}, 0, "SGLAUNCH_STATE_DIR=/srv/state does not reach the service"},
		{"a skipped GPU check", nil, []string{"preflight", "--profile", "demo"}, 0, "SKIP  gpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := cliRun(t, tt.vars, tt.args...)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d (want %d), want %q in:\n%s%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}

// TestPrivateTmpHides: --harden's PrivateTmp=yes gives the service an
// empty /tmp, so a binary, profile or interpreter there is not found.
func TestPrivateTmpHides(t *testing.T) {
	dir := t.TempDir()
	if resolved, err := filepath.EvalSymlinks(dir); err != nil || !(strings.HasPrefix(resolved, "/tmp/") || strings.HasPrefix(resolved, "/var/tmp/")) {
		t.Skipf("the test's temporary directory %s is not under /tmp", dir)
	}
	profile := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(profile, []byte("name: mine\nextends: demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cliRun(t, nil, "unit", "--profile", profile, "--harden")
	if code != 0 || !strings.Contains(stderr, "the profile "+profile+" is under /tmp, which --harden's PrivateTmp=yes hides") {
		t.Errorf("exit %d, want 0 and a warning naming the profile:\n%s", code, stderr)
	}
}

// TestJSONLogStream pins issue 24, item 4: with --log-format json the
// effective config was 66 plain lines ahead of the JSON ones. Every line
// sglaunch writes is one JSON object.
func TestJSONLogStream(t *testing.T) {
	code, _, stderr := cliRun(t, nil, "serve", "--profile", "demo", "--dry-run", "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	configs := 0
	for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %d is not JSON (%v): %q", i+1, err, line)
		}
		if rec["msg"] == "effective config" {
			configs++
			plan, _ := rec["plan"].(map[string]any)
			if plan["profile"] != "demo" || plan["fingerprint"] == "" {
				t.Errorf("effective config without its plan: %q", line)
			}
		}
	}
	if configs != 1 {
		t.Errorf("got %d effective config lines, want 1:\n%s", configs, stderr)
	}
}

// TestExitCodesZeroOneTwo pins issue 24: urfave's unknown help topic
// exited 3, outside the documented 0/1/2.
func TestExitCodesZeroOneTwo(t *testing.T) {
	for _, args := range [][]string{{"profiles", "shwo"}, {"bench", "help", "nosuch"}, {"help", "profiles", "nosuch"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			if code, _, stderr := cliRun(t, nil, args...); code != 2 {
				t.Errorf("exit %d, want 2\n%s", code, stderr)
			}
		})
	}
}

// TestHelpTeaches pins issue 24, item 6: every command's help has a
// description, an example and its exit statuses, said once, under EXIT
// STATUS (a description that said them too printed them twice).
func TestHelpTeaches(t *testing.T) {
	for path := range helpTexts {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			args := append(strings.Fields(path), "--help")
			code, stdout, stderr := cliRun(t, nil, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			for _, want := range []string{"DESCRIPTION:", "EXAMPLES:\n   sglaunch " + path, "EXIT STATUS:\n   "} {
				if !strings.Contains(stdout, want) {
					t.Errorf("sglaunch %s --help lacks %q", path, want)
				}
			}
			if desc, _, _ := strings.Cut(stdout, "EXIT STATUS:"); strings.Contains(strings.ToLower(desc), "exit status") || strings.Contains(desc, "Exits with") {
				t.Errorf("sglaunch %s --help says its exit statuses outside EXIT STATUS", path)
			}
			if strings.Contains(stdout, "(default: ") {
				t.Errorf("sglaunch %s --help writes a default as (default: X), not (default X)", path)
			}
		})
	}
	for _, c := range commands(testEnv(&bytes.Buffer{}, &bytes.Buffer{})) {
		paths := []string{c.Name}
		for _, sub := range c.Subcommands {
			paths = append(paths, c.Name+" "+sub.Name)
		}
		for _, p := range paths {
			if _, ok := helpTexts[p]; !ok {
				t.Errorf("command %q has no examples or exit statuses in helpTexts", p)
			}
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
