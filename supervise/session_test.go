package supervise

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/profiles"
)

// Generous bounds: these tests must not flake on a loaded 2-core machine.
const (
	launchTimeout = 60 * time.Second
	// promptly bounds what must happen "at once" (a crash noticed, a
	// second Ctrl-C obeyed): far below the budgets the test sets, so only
	// the behaviour under test can meet it.
	promptly = 10 * time.Second
	// treeWatchEvery is the sessions' launcher.Options.TreeWatchEvery:
	// short, so that a test waits for a few walks of the server's tree
	// in a fraction of a second (production walks every second).
	treeWatchEvery = 20 * time.Millisecond
	// treeWalks is a wait that holds several walks even when the ticker
	// lags on a loaded machine.
	treeWalks = 10 * treeWatchEvery
)

// fake is a plan that runs testdata/fake_server.py, plus the buffers its
// output and sglaunch's lines go to.
type fake struct {
	plan           *plan.Plan
	stdout, stderr *testkit.SyncBuffer
	logs           *testkit.SyncBuffer
	dir            string
}

// newFake builds a plan for the fake server with the FAKE_* variables in
// env and the settings in set (defaults otherwise).
func newFake(t *testing.T, env map[string]string, set map[string]string) *fake {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	script, err := filepath.Abs("testdata/fake_server.py")
	if err != nil {
		t.Fatal(err)
	}
	settings := plan.DefaultSettings()
	// Fast defaults for tests; each test states what it relies on.
	for k, v := range map[string]string{"health.poll_interval": "20ms", "health.interval": "0", "stop_timeout": "5s"} {
		settings[k] = profiles.Value{Text: v}
	}
	for k, v := range set {
		settings[k] = profiles.Value{Text: v}
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=C.UTF-8"}
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	pl := &plan.Plan{
		Profile:     "fake",
		Mode:        plan.ModeServe,
		Python:      py,
		Argv:        []string{py, "-u", script, "--port", strconv.Itoa(testkit.FreePort(t))},
		Environ:     environ,
		Fingerprint: strings.Repeat("ab", 32),
	}
	pl.ApplySettings(settings)
	return &fake{plan: pl, stdout: &testkit.SyncBuffer{}, stderr: &testkit.SyncBuffer{}, logs: &testkit.SyncBuffer{}, dir: t.TempDir()}
}

func (f *fake) options(t *testing.T) Options {
	t.Helper()
	log, err := logging.New(f.logs, logging.Text)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Options: launcher.Options{Stdout: f.stdout, Stderr: f.stderr, Logger: log, TreeWatchEvery: treeWatchEvery}, StateDir: f.dir}
}

// noSurvivors fails the test if any process started by it is still alive.
func noSurvivors(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if proc.Alive(pid) {
			t.Errorf("pid %d survived", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	left, err := proc.Descendants(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range left {
		cmd, _ := proc.Cmdline(pid)
		t.Errorf("descendant %d %q survived", pid, cmd)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func launch(t *testing.T, f *fake, opts Options) (*Session, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
	t.Cleanup(cancel)
	return Launch(ctx, f.plan, opts)
}

// readPid waits for a pid file the fake's setsid child writes.
func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(launchTimeout)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid file %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLaunchReadyThenStop(t *testing.T) {
	f := newFake(t, map[string]string{
		"FAKE_LINES":      "[x TP0] Load weight begin.|[x TP0] Load weight end.",
		"FAKE_BIND_AFTER": "0.3",
		"FAKE_WARMUP":     "0.3",
		"FAKE_READY_LINE": "1",
	}, nil)
	var started int
	var readyAt time.Time
	opts := f.options(t)
	opts.OnStarted = func(pid int) { started = pid }
	opts.OnReady = func(l health.Load) { readyAt = l.ReadyAt }
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatalf("Launch: %v\nlogs:\n%s", err, f.logs)
	}
	info := s.Ready()
	if started != s.ServerPID() || !readyAt.Equal(info.ReadyAt) {
		t.Errorf("hooks: OnStarted %d (server %d), OnReady at %v (ready at %v)", started, s.ServerPID(), readyAt, info.ReadyAt)
	}
	if info.Seconds <= 0 || !info.ReadyAt.After(info.StartedAt) {
		t.Errorf("ready info %+v: want a positive load time", info)
	}
	var names []string
	for _, p := range info.Phases {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, ","), "loading weights,weights loaded,port bound,warm-up done"; got != want {
		t.Errorf("phases: got %q, want %q", got, want)
	}
	if !strings.Contains(f.logs.String(), "sglaunch: healthy after ") {
		t.Errorf("no healthy line in %q", f.logs)
	}
	status, err := s.Stop(context.Background())
	if err != nil || status != 0 {
		t.Errorf("Stop: got %v, %v; want exit status 0 (the fake exits 0 on SIGTERM)", status, err)
	}
	if !strings.Contains(f.stdout.String(), "got SIGTERM") {
		t.Errorf("the server did not see SIGTERM; stdout:\n%s", f.stdout)
	}
	if launcher.ExitCode(s.Err()) != 0 {
		t.Errorf("exit code after Stop: got %d, want the server's 0", launcher.ExitCode(s.Err()))
	}
	noSurvivors(t, s.ServerPID())

	// The load was remembered for the next ETA.
	if _, err := os.Stat(filepath.Join(f.dir, "loads", f.plan.Fingerprint+".json")); err != nil {
		t.Errorf("load history: %v", err)
	}
}

func TestCrashDuringLoad(t *testing.T) {
	f := newFake(t, map[string]string{
		"FAKE_LINES":      "[x TP0] Load weight begin.|line two",
		"FAKE_NEVER_BIND": "1",
		"FAKE_EXIT_AFTER": "0.5",
		"FAKE_EXIT_CODE":  "7",
	}, map[string]string{"health.poll_interval": "1h"})
	start := time.Now()
	_, err := launch(t, f, f.options(t))
	took := time.Since(start)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("got %v, want ErrExited", err)
	}
	if took > promptly {
		t.Errorf("crash noticed after %v; the gate must race the server's exit", took)
	}
	if got := launcher.ExitCode(err); got != 7 {
		t.Errorf("exit code: got %d, want the server's 7", got)
	}
	msg := err.Error()
	for _, want := range []string{"exited with status 7 during the load", "last 3 lines of server output", "line two", "fatal: simulated crash"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	noSurvivors(t)
}

func TestStartBudgets(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		set  map[string]string
		want error
	}{
		{"start timeout", map[string]string{"FAKE_NEVER_BIND": "1", "FAKE_CHATTER": "0.05"}, map[string]string{"health.start_timeout": "3s"}, ErrStartTimeout}, // 3s: python must have set its SIGTERM handler, even on a loaded host
		// 3s, as above: with 1s a loaded host stalled python before its
		// handler was set, and the server died of SIGTERM (143), not 0.
		{"stall", map[string]string{"FAKE_NEVER_BIND": "1", "FAKE_LINES": "one line"}, map[string]string{"health.stall_timeout": "3s"}, ErrStalled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.env, tt.set)
			_, err := launch(t, f, f.options(t))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if got := launcher.ExitCode(err); got != 1 {
				t.Errorf("exit code: got %d, want 1 (sglaunch gave up on the server)", got)
			}
			if !strings.Contains(err.Error(), "the server exited with status 0") {
				t.Errorf("message %q: want how the stopped server ended", err)
			}
			noSurvivors(t)
		})
	}
}

func TestStopKillsIgnoringServerAndSetsidChild(t *testing.T) {
	f := newFake(t, nil, map[string]string{"stop_timeout": "1s"})
	pidFile := filepath.Join(f.dir, "escaped.pid")
	f.plan.Environ = append(f.plan.Environ, "FAKE_IGNORE=TERM", "FAKE_SETSID_CHILD="+pidFile)
	s, err := launch(t, f, f.options(t))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	escaped := readPid(t, pidFile)
	if st, err := proc.ReadStat(escaped); err != nil || st.SID == s.ServerPID() || st.PGID == s.ServerPID() {
		t.Fatalf("escaped child %d: stat %+v, %v; want it in its own session", escaped, st, err)
	}
	status, err := s.Stop(context.Background())
	if !errors.Is(err, launcher.ErrKilled) {
		t.Fatalf("Stop: got %v, want ErrKilled (the server ignored SIGTERM)", err)
	}
	if status != 128+9 {
		t.Errorf("status: got %v, want %v (killed after stop_timeout)", status, launcher.ExitStatus(137))
	}
	if !strings.Contains(f.logs.String(), "killing it") {
		t.Errorf("no stop_timeout warning in %q", f.logs)
	}
	noSurvivors(t, s.ServerPID(), escaped)
}

func TestCrashLeavesNoSetsidChild(t *testing.T) {
	f := newFake(t, nil, nil)
	pidFile := filepath.Join(f.dir, "escaped.pid")
	f.plan.Environ = append(f.plan.Environ, "FAKE_SETSID_CHILD="+pidFile, "FAKE_NEVER_BIND=1", "FAKE_EXIT_AFTER=1")
	_, err := launch(t, f, f.options(t))
	if !errors.Is(err, ErrExited) {
		t.Fatalf("got %v, want ErrExited", err)
	}
	noSurvivors(t, readPid(t, pidFile))
}

// TestStopKillsSetpgidOrphan: a worker that only changes its process group
// and then loses its parent stays in sglaunch's session; it is known from
// an earlier walk of the server's tree and killed all the same.
func TestStopKillsSetpgidOrphan(t *testing.T) {
	f := newFake(t, nil, nil)
	pidFile := filepath.Join(f.dir, "setpgid.pid")
	f.plan.Environ = append(f.plan.Environ, "FAKE_SETPGID_CHILD="+pidFile)
	s, err := launch(t, f, f.options(t))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	child := readPid(t, pidFile)
	time.Sleep(treeWalks) // let a walk of the tree see it
	// The server dies first (SIGKILL): the worker is re-parented to us.
	_ = syscall.Kill(s.ServerPID(), syscall.SIGKILL)
	<-s.Done()
	noSurvivors(t, child)
}

// TestStopSparesOwnChildren: a process sglaunch starts itself in a group
// of its own (a bench client) is neither killed nor reaped by a session.
func TestStopSparesOwnChildren(t *testing.T) {
	f := newFake(t, nil, nil)
	s, err := launch(t, f, f.options(t))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	own := exec.Command("sleep", "30")
	own.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer own.Process.Kill()
	quick := exec.Command("true")
	quick.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := quick.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(treeWalks) // a zombie for the tree walks to leave alone
	if _, err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !proc.Alive(own.Process.Pid) {
		t.Error("the session killed a child sglaunch started itself")
	}
	if err := quick.Wait(); err != nil {
		t.Errorf("Wait on our own child: %v (the session reaped it)", err)
	}
	own.Process.Kill()
	own.Wait()
	noSurvivors(t)
}

func TestSignals(t *testing.T) {
	tests := []struct {
		name    string
		ignore  string
		send    []syscall.Signal
		status  launcher.ExitStatus
		timeout string
	}{
		// The fake exits 0 on SIGTERM.
		{"SIGTERM is forwarded", "", []syscall.Signal{syscall.SIGTERM}, 0, "1h"},
		// An unhandled KeyboardInterrupt ends Python by SIGINT: 130.
		{"SIGINT is forwarded", "", []syscall.Signal{syscall.SIGINT}, 128 + 2, "1h"},
		// SGLang has no SIGHUP handler: a SIGHUP reaches it as the SIGTERM
		// it drains on (the fake then exits 0), not as a SIGHUP that
		// killed it (129) and cut its requests.
		{"SIGHUP is forwarded as SIGTERM", "", []syscall.Signal{syscall.SIGHUP}, 0, "1h"},
		// A server that ignores SIGINT dies on the second Ctrl-C, long
		// before stop_timeout.
		{"second SIGINT kills at once", "INT", []syscall.Signal{syscall.SIGINT, syscall.SIGURG, syscall.SIGINT}, 128 + 9, "1h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, map[string]string{"FAKE_IGNORE": tt.ignore}, map[string]string{"stop_timeout": tt.timeout})
			sigs := make(chan os.Signal, 4)
			opts := f.options(t)
			opts.Signals = sigs
			s, err := launch(t, f, opts)
			if err != nil {
				t.Fatalf("Launch: %v", err)
			}
			for i, sig := range tt.send {
				sigs <- sig
				if i == 0 && len(tt.send) > 1 {
					waitLog(t, f, "stopping the server") // the first one landed
				}
			}
			done := make(chan error, 1)
			go func() { done <- s.Supervise(context.Background()) }()
			var got error
			select {
			case got = <-done:
			case <-time.After(promptly):
				_ = syscall.Kill(-s.ServerPID(), syscall.SIGKILL)
				t.Fatalf("still running %v after the signals", promptly)
			}
			if !errors.Is(got, ErrInterrupted) {
				t.Errorf("Supervise: got %v, want ErrInterrupted", got)
			}
			if code := launcher.ExitCode(got); code != int(tt.status) {
				t.Errorf("exit code: got %d, want the server's %d\nstdout:%s\nstderr:%s", code, tt.status, f.stdout, f.stderr)
			}
			noSurvivors(t, s.ServerPID())
		})
	}
}

func TestSuperviseServerExitsByItself(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_EXIT_AFTER": "1.5", "FAKE_EXIT_CODE": "5"}, nil)
	s, err := launch(t, f, f.options(t))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	err = s.Supervise(context.Background())
	if !errors.Is(err, ErrExited) || launcher.ExitCode(err) != 5 {
		t.Fatalf("got %v (exit code %d), want ErrExited with 5", err, launcher.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "fatal: simulated crash") {
		t.Errorf("message %q lacks the output tail", err)
	}
	noSurvivors(t)
}

func TestUnhealthy(t *testing.T) {
	tests := []struct {
		policy  string
		wantErr error
		code    int
	}{
		{"exit", ErrUnhealthy, 1},
		{"log", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			f := newFake(t, map[string]string{"FAKE_UNHEALTHY_AFTER": "0.5"}, map[string]string{
				"health.interval": "50ms", "health.failure_threshold": "3", "health.on_unhealthy": tt.policy,
			})
			s, err := launch(t, f, f.options(t))
			if err != nil {
				t.Fatalf("Launch: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- s.Supervise(ctx) }()
			if tt.policy == "log" {
				deadline := time.Now().Add(launchTimeout)
				for !strings.Contains(f.logs.String(), "leaving it running") && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if !proc.Alive(s.ServerPID()) {
					t.Error("on_unhealthy log stopped the server")
				}
				cancel() // a cancelled context stops the server
			}
			var got error
			select {
			case got = <-done:
			case <-time.After(launchTimeout):
				t.Fatal("Supervise did not return")
			}
			if tt.wantErr != nil && !errors.Is(got, tt.wantErr) {
				t.Errorf("got %v, want %v", got, tt.wantErr)
			}
			if code := launcher.ExitCode(got); code != tt.code {
				t.Errorf("exit code: got %d, want %d (%v)", code, tt.code, got)
			}
			if !strings.Contains(f.logs.String(), "liveness probe failed (3/3)") {
				t.Errorf("logs lack the third failure:\n%s", f.logs)
			}
			noSurvivors(t, s.ServerPID())
		})
	}
}

// TestServerSurvivesThreadChurn pins golang/go#27505: the parent-death
// signal fires when the forking OS thread exits. Goroutines that lock a
// thread and return make the runtime kill their threads; the server must
// live on because its forking thread stays locked until Wait returns.
func TestServerSurvivesThreadChurn(t *testing.T) {
	f := newFake(t, nil, nil)
	s, err := launch(t, f, f.options(t))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // exits locked: the thread is destroyed
		}()
	}
	wg.Wait()
	time.Sleep(300 * time.Millisecond)
	if !proc.Alive(s.ServerPID()) {
		t.Fatalf("the server died when threads exited: %v", s.Err())
	}
	if _, err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	noSurvivors(t)
}

func TestTerminalMode(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_LINES": "plain line"}, nil)
	// Report the terminal and its size at start and on every SIGWINCH,
	// then run the fake server.
	f.plan.Argv = append([]string{f.plan.Argv[0], "-u", "-c", `
import os, signal, sys, runpy
def size(*_):
    c, r = os.get_terminal_size(1)
    print("size=%dx%d" % (c, r), flush=True)
print("tty=%s,%s" % (os.isatty(1), os.isatty(2)), flush=True)
size()
signal.signal(signal.SIGWINCH, size)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
`}, f.plan.Argv[2:]...)
	// sglaunch's own terminal, whose size the server's follows.
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	if err := pty.Setsize(master, &pty.Winsize{Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 1)
	opts := f.options(t)
	opts.Terminal, opts.TTY, opts.Signals = true, tty, sigs
	opts.LogFile = filepath.Join(f.dir, "server.log")
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if st, err := proc.ReadStat(s.ServerPID()); err != nil || st.SID != s.ServerPID() {
		t.Errorf("server stat %+v, %v: want its own session", st, err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Cols: 120, Rows: 40}); err != nil {
		t.Fatal(err)
	}
	sigs <- syscall.SIGWINCH
	deadline := time.Now().Add(launchTimeout)
	for !strings.Contains(f.stdout.String(), "size=120x40") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := f.stdout.String()
	for _, want := range []string{"tty=True,True", "size=100x30", "size=120x40", "plain line\r\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output %q lacks %q", out, want)
		}
	}
	if f.stderr.String() != "" {
		t.Errorf("stderr %q: under a terminal everything goes to stdout", f.stderr)
	}
	logged, err := os.ReadFile(opts.LogFile)
	if err != nil || !strings.Contains(string(logged), "plain line") {
		t.Errorf("log file: %q, %v", logged, err)
	}
	noSurvivors(t)
}

func TestPipeModeStreamsAndLogFile(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_LINES": "to stdout"}, nil)
	opts := f.options(t)
	opts.LogFile = filepath.Join(f.dir, "server.log")
	if err := os.WriteFile(opts.LogFile, []byte("earlier run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if st, err := proc.ReadStat(s.ServerPID()); err != nil || st.PGID != s.ServerPID() {
		t.Errorf("server stat %+v, %v: want its own process group", st, err)
	}
	if _, err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.stdout.String(), "to stdout\n") {
		t.Errorf("stdout %q", f.stdout)
	}
	logged, _ := os.ReadFile(opts.LogFile)
	if !strings.HasPrefix(string(logged), "earlier run\n") || !strings.Contains(string(logged), "to stdout\n") {
		t.Errorf("log file %q: want the output appended", logged)
	}
	noSurvivors(t)
}

func TestLaunchCancelledContext(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_NEVER_BIND": "1"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(500*time.Millisecond, cancel)
	_, err := Launch(ctx, f.plan, f.options(t))
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	noSurvivors(t)
}

func TestStartFailure(t *testing.T) {
	f := newFake(t, nil, nil)
	f.plan.Argv[0] = filepath.Join(t.TempDir(), "no-such-python")
	_, err := launch(t, f, f.options(t))
	if !errors.Is(err, ErrStart) || launcher.ExitCode(err) != 1 {
		t.Fatalf("got %v (exit code %d), want ErrStart and 1", err, launcher.ExitCode(err))
	}
}

// watchdogPings counts the WATCHDOG=1 messages that arrive within d.
func watchdogPings(msgs <-chan string, d time.Duration) int {
	n := 0
	deadline := time.After(d)
	for {
		select {
		case m := <-msgs:
			if m == "WATCHDOG=1" {
				n++
			}
		case <-deadline:
			return n
		}
	}
}

// waitLog waits until sglaunch's lines hold want.
func waitLog(t *testing.T, f *fake, want string) {
	t.Helper()
	testkit.WaitFor(t, launchTimeout, "log line "+want, func() bool { return strings.Contains(f.logs.String(), want) })
}

// TestWatchdogPings pins B9 and B11. B9: with on_unhealthy: log the pings
// stopped at the first failed probe, so systemd's watchdog killed a
// server sglaunch was told only to log about. B11: after a probe failed
// and recovered, the next ping waited for the next tick (half of
// WatchdogSec) and could land on systemd's deadline.
func TestWatchdogPings(t *testing.T) {
	tests := []struct {
		name     string
		policy   string
		usec     string // WATCHDOG_USEC
		spell    string // FAKE_UNHEALTHY_FOR: "" unhealthy for good
		waitFor  string
		min, max int // pings after waitFor, within pingWindow
	}{
		{"exit pauses while the probes fail", "exit", "1000000", "", "liveness probe failed (3/1000)", 0, 0},
		{"log keeps pinging", "log", "1000000", "", "liveness probe failed (3/1000)", 2, 1000},
		{"a recovery pings at once", "exit", "600000000", "0.5", "server healthy again", 1, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := testkit.ListenNotify(t)
			t.Setenv("WATCHDOG_USEC", tt.usec)
			t.Setenv("WATCHDOG_PID", "")
			env := map[string]string{"FAKE_UNHEALTHY_AFTER": "0.3"}
			if tt.spell != "" {
				env["FAKE_UNHEALTHY_FOR"] = tt.spell
			}
			f := newFake(t, env, map[string]string{
				"health.interval": "100ms", "health.failure_threshold": "1000", "health.on_unhealthy": tt.policy,
			})
			s, err := launch(t, f, f.options(t))
			if err != nil {
				t.Fatalf("Launch: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Supervise(ctx) }()
			waitLog(t, f, tt.waitFor)
			// What arrived before is not counted; a ping already on its
			// way when the line was logged may still come in first.
			watchdogPings(msgs, 50*time.Millisecond)
			if n := watchdogPings(msgs, pingWindow); n < tt.min || n > tt.max {
				t.Errorf("%d pings within %v after %q, want %d to %d\n%s", n, pingWindow, tt.waitFor, tt.min, tt.max, f.logs)
			}
			cancel()
			select {
			case <-done:
			case <-time.After(launchTimeout):
				t.Fatal("Supervise did not return")
			}
			noSurvivors(t, s.ServerPID())
		})
	}
}

// pingWindow is how long TestWatchdogPings counts pings: two ticks of a
// 1 s watchdog, far below the 300 s tick of the recovery case.
const pingWindow = 1500 * time.Millisecond
