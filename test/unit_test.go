package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needTool finds a tool the test needs. Outside CI a missing tool skips
// the test; in CI (CI set) it fails: .ci/run installs it.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found; CI must install Debian's %s", name, pkg)
	}
	t.Skipf("%s not found (install Debian's %s); CI runs this test", name, pkg)
	return ""
}

func TestUnitVerifies(t *testing.T) {
	t.Parallel()
	analyze := needTool(t, "systemd-analyze", "systemd")
	tests := []struct {
		name     string
		args     []string
		file     string
		want     []string
		absent   []string
		profile  string
		settings string
	}{
		{
			name: "defaults",
			args: []string{"--profile", "demo"},
			file: "sglang-demo.service",
			want: []string{
				"Type=notify\n", "NotifyAccess=main\n", "KillMode=mixed\n", "Restart=on-failure\n",
				"TimeoutStartSec=1890s\n", "TimeoutStopSec=90s\n", "WatchdogSec=130s\n", // 30m + stop_timeout 60s + 30s; 60s + 30s
				"LimitNOFILE=1048576\n", "LimitMEMLOCK=infinity\n", "RestartSec=30s\n", "RestartPreventExitStatus=2\n",
				" --set python=/", "StateDirectory=sglaunch\n",
			},
			absent: []string{"Environment=", "\nUser="},
		},
		{
			name:    "own profile, name and user, liveness off",
			args:    []string{"--profile", "mine", "--name", "llm", "--user", "root"},
			file:    "llm.service",
			profile: "extends: demo\nstop_timeout: 90s\nhealth:\n  interval: 0s\n  start_timeout: 1h\n",
			want:    []string{"User=root\n", "TimeoutStartSec=3720s\n", "TimeoutStopSec=120s\n", "SyslogIdentifier=llm\n"},
			absent:  []string{"WatchdogSec", "Environment="},
		},
		{
			name:   "hardened",
			args:   []string{"--profile", "demo", "--harden"},
			file:   "sglang-demo.service",
			want:   []string{"ProtectSystem=strict\n", "DevicePolicy=closed\n", "DeviceAllow=char-nvidia-uvm rw\n"},
			absent: []string{"Environment=", "\nPrivateDevices=", "\nMemoryDenyWriteExecute="},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if tt.profile != "" {
				e.Profile("mine", tt.profile)
			}
			stdout, stderr, code := e.Run(append([]string{"unit"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("unit: exit %d\n%s", code, stderr)
			}
			wantExec := "ExecStart=" + sglaunchBin + " serve --profile "
			if !strings.Contains(stdout, wantExec) {
				t.Errorf("unit lacks %q:\n%s", wantExec, stdout)
			}
			if tt.profile != "" && !strings.Contains(stdout, filepath.Join(e.Dir, "config", "sglaunch", "profiles", "mine.yaml")) {
				t.Errorf("ExecStart must name the profile file found:\n%s", stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("unit lacks %q:\n%s", w, stdout)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(stdout, a) {
					t.Errorf("unit has %q:\n%s", a, stdout)
				}
			}
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(analyze, "verify", path).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "" {
				t.Errorf("systemd-analyze verify: %v, want no warnings:\n%s\nunit:\n%s", err, out, stdout)
			}
		})
	}
}
