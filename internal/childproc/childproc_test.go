package childproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
)

// Generous bounds: the tests run on a loaded 2-core machine, and the bugs
// they pin take a minute (a daemon's sleep) or forever.
const (
	// slack is what a call may take beyond its timeout and WaitDelay.
	slack = 5 * time.Second
	// daemonSleep is how long the daemons below hold the pipes: a return
	// anywhere near it is the bug.
	daemonSleep = 60 * time.Second
	// goneBound is how long a killed process may take to disappear.
	goneBound = 30 * time.Second
)

// helperEnv makes the test binary act as a helper child instead of
// running the tests (Nomad's TestMain re-exec): "sleep" sleeps; "daemon"
// starts a "sleep" helper in a session of its own (setsid) that inherits
// stdout and stderr, prints its pid, and then exits or, with
// helperThenEnv=hang, sleeps itself.
const (
	helperEnv     = "CHILDPROC_TEST_HELPER"
	helperThenEnv = "CHILDPROC_TEST_THEN"
)

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "sleep":
		time.Sleep(daemonSleep)
		os.Exit(0)
	case "daemon":
		d := exec.Command(os.Args[0])
		d.Env = append(os.Environ(), helperEnv+"=sleep")
		d.Stdout, d.Stderr = os.Stdout, os.Stderr
		d.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := d.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(d.Process.Pid)
		if os.Getenv(helperThenEnv) == "hang" {
			time.Sleep(daemonSleep)
		}
		os.Exit(0)
	}
	os.Exit(2)
}

// daemonHelper is a Spec whose child leaves a setsid daemon holding its
// stdout; the daemon's pid is the first line of the child's stdout, and
// it is killed when the test ends.
func daemonHelper(t *testing.T, then string) Spec {
	t.Helper()
	return Spec{Argv: []string{os.Args[0]}, Env: append(os.Environ(), helperEnv+"=daemon", helperThenEnv+"="+then)}
}

func killPidLine(t *testing.T, out []byte) {
	t.Helper()
	line, _, _ := strings.Cut(string(out), "\n")
	if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && pid > 0 {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
}

func sh(script string) []string { return []string{"/bin/sh", "-c", script} }

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name           string
		script         string
		code           int
		stdout, stderr string
	}{
		{"success", "echo hi", 0, "hi\n", ""},
		{"failure with stderr", "echo out; echo why >&2; exit 3", 3, "out\n", "why\n"},
		{"killed by a signal", "kill -TERM $$", 128 + int(syscall.SIGTERM), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(t.Context(), Spec{Argv: sh(tt.script), Timeout: time.Minute})
			if res.ExitCode != tt.code {
				t.Errorf("exit code: got %d, want %d", res.ExitCode, tt.code)
			}
			var ee *exec.ExitError
			if tt.code == 0 && res.Err != nil || tt.code != 0 && !errors.As(res.Err, &ee) {
				t.Errorf("err: got %v, want an *exec.ExitError only for a non-zero status", res.Err)
			}
			if string(res.Stdout) != tt.stdout || string(res.Stderr) != tt.stderr {
				t.Errorf("output: got %q / %q, want %q / %q", res.Stdout, res.Stderr, tt.stdout, tt.stderr)
			}
			if res.Truncated || res.OutputHeld {
				t.Errorf("got truncated %v, held %v; want neither", res.Truncated, res.OutputHeld)
			}
		})
	}
}

func TestRunEnvDirStdin(t *testing.T) {
	dir := t.TempDir()
	res := Run(t.Context(), Spec{Argv: sh(`echo "$X $(pwd)"; cat`), Env: []string{"X=y"}, Dir: dir, Stdin: strings.NewReader("from stdin")})
	if want := "y " + dir + "\nfrom stdin"; res.Err != nil || string(res.Stdout) != want {
		t.Errorf("got %q, %v; want %q", res.Stdout, res.Err, want)
	}
}

func TestRunStartError(t *testing.T) {
	res := Run(t.Context(), Spec{Argv: []string{"/nonexistent/tool"}})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "/nonexistent/tool") || res.ExitCode != -1 {
		t.Errorf("got %v (exit %d), want a start error naming the tool and -1", res.Err, res.ExitCode)
	}
	if res := Run(t.Context(), Spec{}); res.Err == nil {
		t.Error("an empty argv started")
	}
}

// TestRunTimeoutKillsGroup: a child that runs past its timeout is killed
// with everything it started, and the error says so.
func TestRunTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	const timeout = 300 * time.Millisecond
	start := time.Now()
	res := Run(t.Context(), Spec{Argv: sh("sleep 60 & echo $! > " + pidFile + "; wait"), Timeout: timeout})
	took := time.Since(start)
	if !errors.Is(res.Err, ErrTimeout) || res.Err.Error() != "timed out after 300ms; killed" {
		t.Errorf("err: got %v, want ErrTimeout as %q", res.Err, "timed out after 300ms; killed")
	}
	if res.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code: got %d, want %d", res.ExitCode, 128+int(syscall.SIGKILL))
	}
	if took > timeout+slack {
		t.Errorf("took %v, want under %v", took, timeout+slack)
	}
	waitGone(t, pidFile)
}

// TestRunGraceThenKill: with a grace, the group gets SIGTERM first; one
// that ignores it gets SIGKILL after the grace.
func TestRunGraceThenKill(t *testing.T) {
	tests := []struct {
		name, script string
		code         int
	}{
		{"exits on SIGTERM", "trap 'echo term; exit 7' TERM; while :; do sleep 0.05; done", 7},
		{"ignores SIGTERM", "trap 'echo term' TERM; while :; do sleep 0.05; done", 128 + int(syscall.SIGKILL)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const timeout, grace = 300 * time.Millisecond, time.Second
			start := time.Now()
			res := Run(t.Context(), Spec{Argv: sh(tt.script), Timeout: timeout, Grace: grace})
			if took := time.Since(start); took > timeout+grace+slack {
				t.Errorf("took %v, want under %v", took, timeout+grace+slack)
			}
			if !errors.Is(res.Err, ErrTimeout) || res.ExitCode != tt.code || !strings.Contains(string(res.Stdout), "term") {
				t.Errorf("got %v, exit %d, stdout %q; want the timeout, exit %d and the trap's output", res.Err, res.ExitCode, res.Stdout, tt.code)
			}
		})
	}
}

// TestRunDaemonHoldingStdout: a child that exits but leaves a daemon
// holding its stdout (a sitecustomize.py did this, and held serve for 28 s
// although the probe's timeout was 20 s) returns at once when the daemon
// stays in the group (the group is killed), and within WaitDelay when it
// left it with setsid; with the child itself hanging, within the timeout
// and WaitDelay.
func TestRunDaemonHoldingStdout(t *testing.T) {
	const timeout = 2 * time.Second
	tests := []struct {
		name    string
		spec    func(t *testing.T, pidFile string) Spec
		bound   time.Duration
		timeout bool
		held    bool
	}{
		{"in the group", func(t *testing.T, pidFile string) Spec {
			return Spec{Argv: sh("sleep 60 & echo $! > " + pidFile + "; echo hi")}
		}, slack, false, false},
		{"in the group, child hangs", func(t *testing.T, pidFile string) Spec {
			return Spec{Argv: sh("sleep 60 & echo $! > " + pidFile + "; echo hi; sleep 60")}
		}, timeout + slack, true, false},
		{"setsid", func(t *testing.T, _ string) Spec { return daemonHelper(t, "exit") }, DefaultWaitDelay + slack, false, true},
		{"setsid, child hangs", func(t *testing.T, _ string) Spec { return daemonHelper(t, "hang") }, timeout + DefaultWaitDelay + slack, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			s := tt.spec(t, pidFile)
			s.Timeout = timeout
			start := time.Now()
			res := Run(t.Context(), s)
			took := time.Since(start)
			killPidLine(t, res.Stdout)
			t.Logf("returned after %v", took)
			if took > tt.bound {
				t.Errorf("took %v, want under %v (the daemon sleeps %v)", took, tt.bound, daemonSleep)
			}
			if errors.Is(res.Err, ErrTimeout) != tt.timeout || !tt.timeout && res.Err != nil {
				t.Errorf("err: got %v, want a timeout: %v", res.Err, tt.timeout)
			}
			if res.OutputHeld != tt.held {
				t.Errorf("output held: got %v, want %v", res.OutputHeld, tt.held)
			}
			if len(res.Stdout) == 0 {
				t.Error("the child's output was lost")
			}
			if _, err := os.Stat(pidFile); err == nil {
				waitGone(t, pidFile)
			}
		})
	}
}

// TestRunKeepsStderrEnd: a captured stderr over MaxOutput keeps its end,
// where a failing child says why (a traceback's last line), not its start.
func TestRunKeepsStderrEnd(t *testing.T) {
	res := Run(t.Context(), Spec{Argv: sh("head -c 5000 /dev/zero >&2; echo 'ValueError: bad' >&2; exit 3"), MaxOutput: 1000, Timeout: time.Minute})
	if res.ExitCode != 3 || !res.Truncated || len(res.Stderr) != 1000 || !strings.HasSuffix(string(res.Stderr), "ValueError: bad\n") {
		t.Errorf("got exit %d, truncated %v, %d bytes of stderr ending %q; want exit 3, truncated, 1000 bytes ending with the error", res.ExitCode, res.Truncated, len(res.Stderr), res.Stderr[max(len(res.Stderr)-20, 0):])
	}
}

func TestRunCapsOutput(t *testing.T) {
	tests := []struct {
		name string
		max  int
		want int
	}{
		{"default", 0, DefaultMaxOutput},
		{"small", 1000, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Run(t.Context(), Spec{Argv: sh("head -c 50000000 /dev/zero; echo done >&2"), MaxOutput: tt.max, Timeout: time.Minute})
			if res.Err != nil || !res.Truncated || len(res.Stdout) != tt.want || string(res.Stderr) != "done\n" {
				t.Errorf("got %v, truncated %v, %d bytes, stderr %q; want success, truncated, %d bytes and stderr done", res.Err, res.Truncated, len(res.Stdout), res.Stderr, tt.want)
			}
		})
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	res := Run(ctx, Spec{Argv: []string{"sleep", "60"}})
	if !errors.Is(res.Err, context.Canceled) || errors.Is(res.Err, ErrTimeout) {
		t.Errorf("err: got %v, want the cancellation", res.Err)
	}
	if took := time.Since(start); took > slack {
		t.Errorf("took %v", took)
	}
	if res := Run(ctx, Spec{Argv: []string{"true"}}); !errors.Is(res.Err, context.Canceled) {
		t.Errorf("with an ended context: got %v, want the cancellation without a start", res.Err)
	}
}

// TestStartWaitStreams: the long-running form sends both streams to one
// writer, as they come, and Wait may be called twice.
func TestStartWaitStreams(t *testing.T) {
	var out bytes.Buffer
	c, err := Start(t.Context(), Spec{Argv: sh("echo one; echo two >&2; echo three"), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	if c.Pid() <= 0 {
		t.Errorf("pid: got %d", c.Pid())
	}
	res := c.Wait()
	if res.Err != nil || out.String() != "one\ntwo\nthree\n" || res.Stdout != nil || res.Stderr != nil {
		t.Errorf("got %v, output %q, captured %q %q; want the streams in order in the writer only", res.Err, out.String(), res.Stdout, res.Stderr)
	}
	if again := c.Wait(); again.ExitCode != res.ExitCode {
		t.Errorf("second Wait: got %+v, want %+v", again, res)
	}
}

// waitGone waits for the process whose pid is in pidFile to be gone (or
// a zombie), and kills it and fails the test when it outlives goneBound.
func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(goneBound)
	for proc.Alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("grandchild %d outlived its group's kill", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
