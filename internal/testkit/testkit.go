package testkit

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

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

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
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
