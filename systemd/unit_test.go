package systemd

import (
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

func TestExecQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/bin/sglaunch", "/usr/bin/sglaunch"},
		{"/opt/my tools/sglaunch", `"/opt/my tools/sglaunch"`},
		{"/p/100%/x", "/p/100%%/x"},
		{"/p/$HOME", "/p/$$HOME"},
		{`/p/a"b`, `"/p/a\"b"`},
		{"/p/a\nb", `"/p/a\nb"`},
	}
	for _, tt := range tests {
		if got := execQuote(tt.in); got != tt.want {
			t.Errorf("execQuote(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCRInProfilePathSplitsExecStart pins issue 12 defect 9: execQuote
// left a carriage return raw, and systemd ended the ExecStart= line at
// it, running a truncated command line. Every control character is a C
// escape inside double quotes now.
func TestCRInProfilePathSplitsExecStart(t *testing.T) {
	for in, want := range map[string]string{
		"/p/a\rb.yaml": `"/p/a\rb.yaml"`,
		"/p/a\tb":      `"/p/a\tb"`,
		"/p/a\x1b[31m": `"/p/a\x1b[31m"`,
		"/p/a\u0085b":  `"/p/a\u0085b"`,
		"/p/a\r\n$x%y": `"/p/a\r\n$$x%%y"`,
	} {
		got := execQuote(in)
		if got != want {
			t.Errorf("execQuote(%q): got %q, want %q", in, got, want)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return r < 0x20 || r == 0x7f || r == 0x85 }) {
			t.Errorf("execQuote(%q) = %q holds a raw control character", in, got)
		}
	}
}

func TestUnitTimeouts(t *testing.T) {
	settings := plan.DefaultSettings()
	settings["health.start_timeout"] = profiles.Value{Text: "45m"}
	settings["stop_timeout"] = profiles.Value{Text: "1m"}
	pl := &plan.Plan{Profile: "kimi", Source: profiles.BuiltinSource, Fingerprint: strings.Repeat("0", 64)}
	pl.ApplySettings(settings)
	u, err := Unit(pl, UnitOptions{Exe: "/usr/local/bin/sglaunch"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ExecStart=/usr/local/bin/sglaunch serve --profile kimi\n",
		"TimeoutStartSec=2790s\n", // 45m + 1m + 30s
		"TimeoutStopSec=90s\n",
		"WatchdogSec=130s\n", // 3 × (10s + 30s) + 10s
		"# sglang-kimi.service",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("unit lacks %q:\n%s", want, u)
		}
	}
	if seconds(1500*time.Millisecond) != "2s" {
		t.Errorf("seconds rounds up: got %s", seconds(1500*time.Millisecond))
	}
}

func TestUnitRejectsBadNames(t *testing.T) {
	settings := plan.DefaultSettings()
	pl := &plan.Plan{Profile: "kimi", Source: profiles.BuiltinSource}
	pl.ApplySettings(settings)
	tests := []struct {
		name string
		o    UnitOptions
		want string
	}{
		{"name with a slash", UnitOptions{Name: "a/b"}, "--name"},
		{"user with a newline", UnitOptions{User: "root\nExecStartPre=/bin/sh"}, "--user"},
		{"user with a space", UnitOptions{User: "a b"}, "--user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unit(pl, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !inputerr.Is(err) {
				t.Errorf("got %v, want an input error naming %s", err, tt.want)
			}
		})
	}
	for _, ok := range []UnitOptions{{Name: "sglang-kimi.service"}, {User: "sglang"}, {User: "1001"}} {
		if _, err := Unit(pl, ok); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
