package testkit

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				fmt.Fprintf(&b, "%d\n", i)
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(b.String(), "\n"); got != 400 {
		t.Errorf("got %d lines, want 400", got)
	}
}

func TestFreePort(t *testing.T) {
	port := FreePort(t)
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("port %d is not free: %v", port, err)
	}
	l.Close()
}

// fatalTB records the failure WaitFor reports and stops the goroutine
// that called it, as testing's Fatalf does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) Errorf(format string, args ...any) { f.msg = fmt.Sprintf(format, args...) }

func TestWaitFor(t *testing.T) {
	n := 0
	WaitFor(t, time.Minute, "three polls", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("got %d polls, want 3", n)
	}

	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(tb, 50*time.Millisecond, "never", func() bool { return false })
	}()
	<-done
	if want := "timed out after 50ms waiting for never"; tb.msg != want {
		t.Errorf("got %q, want %q", tb.msg, want)
	}
}

func TestGolden(t *testing.T) {
	t.Chdir(t.TempDir())
	Golden(t, "g", "one\n", true)
	Golden(t, "g", "one\n", false)

	tb := &fatalTB{TB: t}
	Golden(tb, "g", "two\n", false)
	if want := "g differs from the golden file (refresh with -update if intended)\n--- got\ntwo\n\n--- want\none\n"; tb.msg != want {
		t.Errorf("got %q, want %q", tb.msg, want)
	}
	tb = &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Golden(tb, "missing", "x", false)
	}()
	<-done
	if !strings.HasPrefix(tb.msg, "read golden (create it with go test -run 'TestGolden' -update): ") {
		t.Errorf("got %q, want the missing file named with how to create it", tb.msg)
	}
}
