package testkit

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Update is the -update flag of every test binary that imports testkit:
// go test ./... -update rewrites the golden files under testdata/. Every
// package with tests imports testkit (at least for this flag), so that
// the flag is known everywhere and -update fails no package.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers:
// a child's output that a test polls. The zero value is ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// handedOut are the ports FreePort returned: the kernel may hand a port
// it just freed out again, and two ports a test asks for (a server's and
// its status endpoint's) must differ.
var handedOut sync.Map

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago,
// never one it returned before in this process.
func FreePort(t testing.TB) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("find a free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if _, dup := handedOut.LoadOrStore(port, true); !dup {
			return port
		}
	}
	t.Fatalf("find a free port: the kernel keeps handing out ports already given")
	return 0
}

// pollEvery is how often WaitFor checks its condition.
const pollEvery = 20 * time.Millisecond

// WaitFor polls cond until it holds, and fails the test, naming what it
// waited for, when timeout passes first.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		case <-time.After(pollEvery):
		}
	}
}

// BuildSglaunch builds the sglaunch command into dir and returns the
// binary's path; the error holds the compiler's output.
func BuildSglaunch(dir string) (string, error) {
	bin := filepath.Join(dir, "sglaunch")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/sglaunch/sglaunch/cmd/sglaunch").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build sglaunch: %v\n%s", err, out)
	}
	return bin, nil
}

// RealPython is the python3 interpreter itself (sys.executable), not a
// shim that execs another, so that the argv a child records is the argv
// it was given.
func RealPython(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// Golden compares got with testdata/NAME.golden, or, with update set (the
// calling package's -update flag), writes got there instead.
func Golden(t testing.TB, name, got string, update bool) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (create it with go test -run '%s' -update): %v", t.Name(), err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (refresh with -update if intended)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// PythonWithSetproctitle is an interpreter (sys.executable) that imports
// the setproctitle package SGLang titles its workers with (Debian's
// python3-setproctitle; CI installs it): python3 from PATH, or the
// system's. The test fails, saying what to install, when neither does.
func PythonWithSetproctitle(t testing.TB) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import setproctitle, sys; print(sys.executable)").Output()
		if err == nil {
			return strings.TrimSpace(string(out))
		}
	}
	t.Fatalf("no python3 imports setproctitle: install python3-setproctitle (CI does)")
	return ""
}

// MinParallel raises -parallel's default (GOMAXPROCS) to at least n
// for a package whose tests mostly wait on child processes, so that a
// 2-core machine runs more than two of them at once. A -parallel given on
// the command line wins. Call it from TestMain, before m.Run.
func MinParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !given && runtime.GOMAXPROCS(0) < n {
		_ = f.Value.Set(strconv.Itoa(n))
	}
}

// WaitExeced waits until pid's argument and environment strings are in
// place. exec.Cmd.Start returns once the child's execve has passed the
// point of no return (its close-on-exec pipe closed), which is before
// the kernel lays the new argv and environ out: a /proc/PID/cmdline or
// environ read at once may still find them empty.
func WaitExeced(t testing.TB, pid int) {
	t.Helper()
	WaitFor(t, 10*time.Second, fmt.Sprintf("pid %d's argv after exec", pid), func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return err != nil || len(b) > 0 // gone: the caller's check tells
	})
}
