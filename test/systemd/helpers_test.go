package systemd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds: the suite must not flake on a loaded 2-core machine.
const (
	commandTimeout = 2 * time.Minute
	waitTimeout    = 60 * time.Second
)

var (
	mach    *machine
	bootErr error
	// sglaunch and the interpreters, as the machine sees them.
	sglaunchBin = shareDir + "/bin/sglaunch"
	venvPython  = shareDir + "/venv/bin/python3" // the operator's benchmarked interpreter
	shimPython  = shareDir + "/shims/python3"    // a pyenv-style shim that execs the system python3
	sysPython   string                           // what systemd's PATH finds
)

// systemdPath is the PATH systemd gives its services.
const systemdPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sglaunch-systemd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mach, bootErr = boot(dir)
	if bootErr == nil {
		defer mach.shutdown()
		bootErr = prepareShare(mach)
	}
	return m.Run()
}

// needMachine returns the booted machine, or fails the test with the
// reason it could not boot.
func needMachine(t testing.TB) *machine {
	t.Helper()
	if bootErr != nil {
		t.Fatalf("the real-systemd suite needs systemd booted in new namespaces, and it could not be: %v", bootErr)
	}
	return mach
}

// prepareShare builds sglaunch into the share and lays out the
// interpreters: a venv over the python3 systemd's PATH finds (what the
// operator benchmarked with) and a shim that execs that python3.
func prepareShare(m *machine) error {
	bin := m.share(shareDir + "/bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	if _, err := testkit.BuildSglaunch(bin); err != nil {
		return err
	}
	for _, d := range strings.Split(systemdPath, ":") {
		if fi, err := os.Stat(filepath.Join(d, "python3")); err == nil && !fi.IsDir() {
			sysPython = filepath.Join(d, "python3")
			break
		}
	}
	if sysPython == "" {
		return fmt.Errorf("no python3 on systemd's PATH (%s): the services need one a system account can run (Debian: python3)", systemdPath)
	}
	venv := m.share(shareDir + "/venv")
	if err := os.MkdirAll(filepath.Join(venv, "bin"), 0o755); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(sysPython)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = "+filepath.Dir(real)+"\ninclude-system-site-packages = false\n"), 0o644); err != nil {
		return err
	}
	if err := os.Symlink(real, m.share(venvPython)); err != nil {
		return err
	}
	if err := os.MkdirAll(m.share(shareDir+"/shims"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(m.share(shimPython), []byte("#!/bin/sh\n# a pyenv-style shim: it hands off to another file\nexec "+sysPython+" \"$@\"\n"), 0o755); err != nil {
		return err
	}
	for _, d := range []string{"profiles", "events"} {
		if err := os.MkdirAll(m.share(shareDir+"/"+d), 0o777); err != nil {
			return err
		}
		if err := os.Chmod(m.share(shareDir+"/"+d), 0o777); err != nil {
			return err
		}
	}
	return nil
}

// operatorEnv is the shell of the operator who benchmarks and writes the
// units: root, with the benchmarked interpreter first on PATH.
func operatorEnv(extra ...string) []string {
	return append([]string{"PATH=" + filepath.Dir(venvPython) + ":" + systemdPath, "HOME=/root", "LANG=C.UTF-8"}, extra...)
}

// profile writes a profile on the simulator with a fast load; env adds
// server variables and more adds top-level YAML. It returns the path the
// machine sees.
func profile(t testing.TB, m *machine, name string, port int, env map[string]string, more string) string {
	t.Helper()
	vars := map[string]string{"SGLANG_SIM_LOAD_SECONDS": "1", "SGLANG_SIM_WARMUP_SECONDS": "0.2", "SGLANG_SIM_TTFT_MS": "20"}
	maps.Copy(vars, env)
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nextends: demo\nenv:\n", name)
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		fmt.Fprintf(&b, "  %s: %q\n", k, vars[k])
	}
	fmt.Fprintf(&b, "args:\n  port: %d\n%s", port, more)
	path := shareDir + "/profiles/" + name + ".yaml"
	if err := os.WriteFile(m.share(path), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sglaunch runs sglaunch inside the machine in env (operatorEnv when nil).
func (m *machine) sglaunch(t testing.TB, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if env == nil {
		env = operatorEnv()
	}
	return m.exec(t.Context(), env, append([]string{sglaunchBin}, args...)...)
}

// install writes `sglaunch unit` output, unchanged, as the unit file,
// plus drop-ins (name → text) where a test needs one, and reloads.
func (m *machine) install(t testing.TB, name, unit string, dropins map[string]string) {
	t.Helper()
	path := m.rootPath("/etc/systemd/system/" + name + ".service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(dropins) > 0 {
		dir := m.rootPath("/etc/systemd/system/" + name + ".service.d")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, text := range dropins {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.systemctl(t, "daemon-reload")
	t.Cleanup(func() {
		// Nothing of this test keeps running into the next one.
		_, _, _ = m.exec(context.Background(), nil, "systemctl", "stop", name)
		_, _, _ = m.exec(context.Background(), nil, "systemctl", "reset-failed", name)
	})
}

// unit writes a unit for profile with `sglaunch unit` in the operator's
// environment (plus extra args) and installs it.
func (m *machine) unit(t testing.TB, name, profilePath string, args []string, dropins map[string]string) string {
	t.Helper()
	out, errOut, code := m.sglaunch(t, nil, append([]string{"unit", "--profile", profilePath, "--name", name}, args...)...)
	if code != 0 {
		t.Fatalf("sglaunch unit: exit %d\n%s", code, errOut)
	}
	m.install(t, name, out, dropins)
	return out
}

// systemctl runs systemctl in the machine and fails the test on an error.
func (m *machine) systemctl(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, code := m.exec(t.Context(), nil, append([]string{"systemctl", "--no-pager"}, args...)...)
	if code != 0 {
		t.Fatalf("systemctl %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// show reads unit properties.
func (m *machine) show(t testing.TB, unit string, props ...string) map[string]string {
	t.Helper()
	args := []string{"systemctl", "show", unit}
	for _, p := range props {
		args = append(args, "-p", p)
	}
	out, errOut, code := m.exec(t.Context(), nil, args...)
	if code != 0 {
		t.Fatalf("systemctl show %s: exit %d: %s", unit, code, errOut)
	}
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	return got
}

// waitState waits until the unit's properties hold want.
func (m *machine) waitState(t testing.TB, unit string, timeout time.Duration, want map[string]string) map[string]string {
	t.Helper()
	var props []string
	for k := range want {
		props = append(props, k)
	}
	deadline := time.Now().Add(timeout)
	for {
		got := m.show(t, unit, props...)
		ok := true
		for k, v := range want {
			if got[k] != v {
				ok = false
			}
		}
		if ok {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v after %v, want %v\n%s", unit, got, timeout, want, m.journalText(t, unit))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// entry is one journal entry.
type entry struct {
	Priority int
	Message  string
}

// journal reads the unit's entries (journalctl -u, plus args such as -p).
func (m *machine) journal(t testing.TB, unit string, args ...string) []entry {
	t.Helper()
	_, _, _ = m.exec(t.Context(), nil, "journalctl", "--sync")
	out, errOut, code := m.exec(t.Context(), nil, append([]string{"journalctl", "--no-pager", "-o", "json", "-u", unit}, args...)...)
	if code != 0 && code != 1 {
		t.Fatalf("journalctl -u %s: exit %d: %s", unit, code, errOut)
	}
	var entries []entry
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var raw map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &raw) != nil {
			continue
		}
		var e entry
		var prio string
		_ = json.Unmarshal(raw["PRIORITY"], &prio)
		fmt.Sscan(prio, &e.Priority)
		// MESSAGE is a string, or an array of bytes when not UTF-8.
		if json.Unmarshal(raw["MESSAGE"], &e.Message) != nil {
			var b []byte
			var ints []int
			if json.Unmarshal(raw["MESSAGE"], &ints) == nil {
				for _, i := range ints {
					b = append(b, byte(i))
				}
			}
			e.Message = string(b)
		}
		entries = append(entries, e)
	}
	return entries
}

// journalText is the unit's journal as text, for failure messages.
func (m *machine) journalText(t testing.TB, unit string) string {
	t.Helper()
	out, _, _ := m.exec(context.Background(), nil, "journalctl", "--no-pager", "-o", "short-monotonic", "-n", "80", "-u", unit)
	return "journal of " + unit + " (last 80 lines):\n" + out
}

// waitJournal waits until an entry of the unit at priority ≤ maxPrio
// holds want, and returns it.
func (m *machine) waitJournal(t testing.TB, unit string, maxPrio int, want string) entry {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		for _, e := range m.journal(t, unit, "-p", fmt.Sprint(maxPrio)) {
			if strings.Contains(e.Message, want) {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no journal entry of %s at priority <= %d holds %q within %v\n%s", unit, maxPrio, want, waitTimeout, m.journalText(t, unit))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// unitPIDs are the host pids of the processes in the unit's cgroup.
func (m *machine) unitPIDs(t testing.TB, unit string) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(m.cgroup, "system.slice", unit+".service", "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		var pid int
		if _, err := fmt.Sscan(f, &pid); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
