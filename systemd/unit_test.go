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

func unitOf(t *testing.T, set map[string]string, o UnitOptions) string {
	t.Helper()
	settings := plan.DefaultSettings()
	for k, v := range set {
		settings[k] = profiles.Value{Text: v}
	}
	pl := &plan.Plan{Profile: "kimi", Source: profiles.BuiltinSource, Fingerprint: strings.Repeat("0", 64)}
	pl.ApplySettings(settings)
	if o.Exe == "" {
		o.Exe = "/usr/local/bin/sglaunch"
	}
	u, err := Unit(pl, o)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func wantLines(t *testing.T, unit string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(unit, w) {
			t.Errorf("unit lacks %q:\n%s", w, unit)
		}
	}
	for _, a := range absent {
		if strings.Contains(unit, a) {
			t.Errorf("unit has %q:\n%s", a, unit)
		}
	}
}

// TestUnitPinsPython pins B1: `python: python3` was resolved through
// systemd's PATH when the service started, not the operator's, so the
// service ran another interpreter than the benchmark.
func TestUnitPinsPython(t *testing.T) {
	u := unitOf(t, nil, UnitOptions{Python: "/opt/venv/bin/python3"})
	wantLines(t, u, []string{"ExecStart=/usr/local/bin/sglaunch serve --profile kimi --set python=/opt/venv/bin/python3\n"}, nil)
	u = unitOf(t, nil, UnitOptions{Python: "/opt/my venv/bin/python3"})
	wantLines(t, u, []string{`--set "python=/opt/my venv/bin/python3"` + "\n"}, nil)
	if _, err := Unit(&plan.Plan{Profile: "kimi", Source: profiles.BuiltinSource}, UnitOptions{Python: "python3"}); err == nil {
		t.Error("a relative interpreter was pinned")
	}
}

// TestUnitRestarts pins B10: there was no start limit, and exit status 2
// (a typo in the profile) restarted every 10 s forever.
func TestUnitRestarts(t *testing.T) {
	u := unitOf(t, nil, UnitOptions{})
	wantLines(t, u, []string{
		"RestartPreventExitStatus=2\n", "RestartSec=30s\n", "StartLimitBurst=3\n",
		"StartLimitIntervalSec=5760s\n", // 3 × (TimeoutStartSec 1890s + RestartSec 30s)
	}, nil)
	// The start limit belongs in [Unit]: systemd ignores it in [Service].
	unitSection, _, _ := strings.Cut(u, "[Service]")
	if !strings.Contains(unitSection, "StartLimitBurst=") {
		t.Errorf("StartLimitBurst is not in [Unit]:\n%s", u)
	}
}

// TestUnitWatchdogFollowsOnUnhealthy pins B9's unit half: with
// on_unhealthy: log the unit still had WatchdogSec= and
// WatchdogSignal=SIGTERM, so "log only" killed the server anyway.
func TestUnitWatchdogFollowsOnUnhealthy(t *testing.T) {
	wantLines(t, unitOf(t, map[string]string{"health.on_unhealthy": "exit"}, UnitOptions{}), []string{"WatchdogSec=130s\n", "WatchdogSignal=SIGTERM\n"}, nil)
	wantLines(t, unitOf(t, map[string]string{"health.on_unhealthy": "log"}, UnitOptions{}), nil, []string{"WatchdogSec=", "WatchdogSignal="})
	wantLines(t, unitOf(t, map[string]string{"health.interval": "0s"}, UnitOptions{}), nil, []string{"WatchdogSec="})
}

// TestUnitDirectoriesAndJournal pins B7's unit half (no StateDirectory=
// and friends for a system account) and B5's (journald's default rate
// limit dropped the lines before a crash).
func TestUnitDirectoriesAndJournal(t *testing.T) {
	wantLines(t, unitOf(t, nil, UnitOptions{User: "sglang"}), []string{
		"User=sglang\n", "StateDirectory=sglaunch-sglang-kimi\n", "CacheDirectory=sglaunch-sglang-kimi\n", "RuntimeDirectory=sglaunch-sglang-kimi\n",
		"RuntimeDirectoryPreserve=yes\n", "LogRateLimitIntervalSec=30s\n", "LogRateLimitBurst=100000\n",
		"After=network-online.target nvidia-persistenced.service\n",
	}, []string{"Environment="})
	// Root's units share the host's directories with root's commands.
	wantLines(t, unitOf(t, nil, UnitOptions{}), []string{"StateDirectory=sglaunch\n", "CacheDirectory=sglaunch\n", "RuntimeDirectory=sglaunch\n"}, nil)
}

func TestHardenedUnit(t *testing.T) {
	plain := unitOf(t, nil, UnitOptions{})
	hard := unitOf(t, nil, UnitOptions{Harden: true, Home: "/root"})
	for _, opt := range []string{"NoNewPrivileges=", "ProtectSystem=", "DevicePolicy=", "DeviceAllow="} {
		if strings.Contains(plain, opt) {
			t.Errorf("the plain unit has %s: it must keep working with GPUs as it did", opt)
		}
	}
	wantLines(t, hard, []string{
		"NoNewPrivileges=yes\n", "ProtectSystem=strict\n", "ProtectHome=read-only\n",
		"ReadWritePaths=-/root/.cache -/root/.triton -/root/.nv\n",
		"DevicePolicy=closed\n", "DeviceAllow=char-nvidiactl rw\n", "DeviceAllow=char-nvidia-uvm rw\n", "DeviceAllow=char-nvidia-caps rw\n",
		"CapabilityBoundingSet=\n", "SystemCallErrorNumber=EPERM\n",
	}, []string{"\nPrivateDevices=", "\nMemoryDenyWriteExecute=", "\nProcSubset=", "\nPrivateNetwork=", "\nPrivateUsers="})
	// Every option has its reason: the line above each is a comment or
	// another option of the same group.
	lines := strings.Split(hard[strings.Index(hard, "# Hardening"):], "\n")
	for i, l := range lines {
		if i > 0 && l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "[") && lines[i-1] == "" {
			t.Errorf("option %q has no comment", l)
		}
	}
	if u := unitOf(t, nil, UnitOptions{Harden: true, Home: "/nonexistent"}); strings.Contains(u, "\nReadWritePaths=") {
		t.Errorf("ReadWritePaths for an account without a home:\n%s", u)
	}
}

// TestUserManagerUnit pins issue 22: under systemd --user the unit's
// WantedBy=multi-user.target made enable a no-op (a user manager has no
// such target) and its LimitNOFILE=/LimitMEMLOCK= were clamped silently.
func TestUserManagerUnit(t *testing.T) {
	u := unitOf(t, nil, UnitOptions{UserManager: true})
	wantLines(t, u, []string{"WantedBy=default.target\n", "systemctl --user daemon-reload && systemctl --user enable --now sglang-kimi\n"},
		[]string{"WantedBy=multi-user.target", "\nLimitNOFILE=", "\nLimitMEMLOCK=", "\nUser="})
	if _, err := Unit(nil, UnitOptions{Name: "x", UserManager: true, User: "sglang"}); err == nil || !strings.Contains(err.Error(), "--user-unit") {
		t.Errorf("--user with --user-unit: %v, want an error naming both", err)
	}
}
