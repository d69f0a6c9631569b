package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

func testEnv(stdout, stderr *bytes.Buffer) *env {
	e := defaultEnv()
	e.stdout, e.stderr = stdout, stderr
	e.lookupEnv = func(string) (string, bool) { return "", false }
	e.environ = func() []string { return nil }
	return e
}

// TestHelpGolden pins every command's --help text.
func TestHelpGolden(t *testing.T) {
	cmds := [][]string{{}}
	for _, c := range commands(testEnv(&bytes.Buffer{}, &bytes.Buffer{})) {
		cmds = append(cmds, []string{c.Name})
		for _, sub := range c.Subcommands {
			cmds = append(cmds, []string{c.Name, sub.Name})
		}
	}
	for _, args := range cmds {
		name := "help-" + strings.Join(append([]string{"sglaunch"}, args...), "-")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			argv := append(append([]string{"sglaunch"}, args...), "--help")
			if code := run(context.Background(), argv, testEnv(&stdout, &stderr)); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			testkit.Golden(t, name, stdout.String(), *testkit.Update)
		})
	}
}

func TestNoStackTraces(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sglaunch", "nosuchcommand"}, 2, "unknown command"},
		{[]string{"sglaunch", "config", "--profile"}, 2, "flag needs an argument"},
		{[]string{"sglaunch", "diff", "a"}, 2, "want two operands"},
		{[]string{"sglaunch", "profiles", "show"}, 2, "want one profile name"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[1:], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, testEnv(&stdout, &stderr))
			out := stdout.String() + stderr.String()
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, tt.code, tt.want, out)
			}
			if strings.Contains(out, "goroutine ") {
				t.Errorf("stack trace:\n%s", out)
			}
		})
	}
}
