package group

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCheckLeader(t *testing.T) {
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name   string
		leader string
		ports  []Port
		want   string
	}{
		{"another host", "192.0.2.7", nil, "not this host's"},
		{"name that never resolves", "rank0.invalid", nil, "does not resolve within"},
		{"port taken or ephemeral", "127.0.0.1", []Port{{"multinode.control_port", busy}}, "multinode.control_port"},
		{"local and free", "127.0.0.1", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLeader(context.Background(), tt.leader, tt.ports, 1500*time.Millisecond)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
	if err := CheckLeader(context.Background(), "192.0.2.7", nil, time.Second); !errors.Is(err, ErrLeaderNotLocal) {
		t.Errorf("got %v, want ErrLeaderNotLocal", err)
	}
}

// TestWorkerWaitsForLateRankZero: a worker started before rank 0
// listens keeps trying, as in a LeaderWorkerSet whose leader starts
// last.
func TestWorkerWaitsForLateRankZero(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	w := NewWorker(config(report(1, same(1)), 2, addr))
	defer w.Close()
	done := make(chan error, 1)
	go func() { _, err := w.Rendezvous(t.Context()); done <- err }()
	time.Sleep(3 * dialEvery)
	cfg := config(report(0, same(0)), 2, addr)
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(wait):
		t.Fatal("the worker never joined")
	}
}

func TestInterfaceIP(t *testing.T) {
	ip, err := InterfaceIP("lo")
	if err != nil || ip != "127.0.0.1" {
		t.Errorf("lo: got %q, %v", ip, err)
	}
	if _, err := InterfaceIP("no-such-if0"); err == nil || !strings.Contains(err.Error(), "multinode.interface no-such-if0") {
		t.Errorf("got %v, want an error naming multinode.interface", err)
	}
}

// TestCheckPortsNamesHolder: a rank-0 port another process holds is
// refused with the holder's pid, found by proc.CheckPort as preflight
// finds it.
func TestCheckPortsNamesHolder(t *testing.T) {
	lo, _, err := ephemeralRange()
	if err != nil {
		t.Skipf("no ephemeral range to stay below: %v", err)
	}
	var ln net.Listener
	for p := lo - 1; p > lo-2000 && p > 1024 && ln == nil; p-- {
		ln, _ = net.Listen("tcp", ":"+strconv.Itoa(p))
	}
	if ln == nil {
		t.Skip("no free port below the ephemeral range to hold")
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	err = CheckPorts(t.Context(), []Port{{"multinode.control_port", port}})
	want := fmt.Sprintf("multinode.control_port %d is not free on this host: in use by pid %d", port, os.Getpid())
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want an error starting %q", err, want)
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Errorf("got %v, want it to wrap EADDRINUSE", err)
	}
}
