//go:build linux

package rxstamp

import (
	"io"
	"net"
	"testing"
	"time"
)

// TestReaderStampsArrival: a read of a stamped socket carries the time the
// data reached the machine, which is before the read returned, even when
// the reader comes late; the peer's close reads as io.EOF.
func TestReaderStampsArrival(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	rc, err := server.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	r := NewReader(rc)
	if r == nil {
		t.Fatal("SO_TIMESTAMPNS refused on a TCP socket")
	}
	p := make([]byte, 16)
	read := func() (string, time.Time) {
		t.Helper()
		n, at, err := r.Read(p)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return string(p[:n]), at
	}
	// The kernel turns stamping on for the whole machine from a work queue
	// once the first socket asks (net_enable_timestamp): data that
	// arrives before then carries no stamp. Wait for a stamped probe.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := client.Write([]byte("p")); err != nil {
			t.Fatal(err)
		}
		if _, at := read(); !at.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no read was stamped within 10 s")
		}
	}
	before := time.Now()
	if _, err := client.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the reader comes late
	got, at := read()
	after := time.Now()
	if got != "hello" {
		t.Errorf("read %q, want hello", got)
	}
	if at.Before(before.Add(-time.Second)) || at.After(after.Add(-40*time.Millisecond)) {
		t.Errorf("stamp %v: want the arrival, between %v and 40 ms before the read returned at %v", at, before, after)
	}
	client.Close()
	if n, _, err := r.Read(p); n != 0 || err != io.EOF {
		t.Errorf("after the peer closed: %d bytes, %v; want io.EOF", n, err)
	}
}
