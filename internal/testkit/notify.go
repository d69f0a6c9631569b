package testkit

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

// ListenNotify binds a unixgram socket like systemd's and points
// NOTIFY_SOCKET at it; messages arrive on the returned channel.
func ListenNotify(t testing.TB) <-chan string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	out := make(chan string, 100)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			out <- string(buf[:n])
		}
	}()
	return out
}

// NextNotify returns the next notify message, failing the test when none
// comes within timeout.
func NextNotify(t testing.TB, msgs <-chan string, timeout time.Duration) string {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-time.After(timeout):
		t.Fatal("no notify message")
		return ""
	}
}
