package proc

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCheckPort: binding an address for a moment is classified once,
// for preflight and group alike: free, in use (with the holder from
// /proc), not this host's address, a privileged port. No traffic is sent.
func TestCheckPort(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldPort := held.Addr().(*net.TCPAddr).Port
	self, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		addr       string
		skip       func() string // a reason the host cannot show the case
		want       PortState
		wantErr    error
		wantHolder Holder
		wantIn     string // in Problem()
	}{
		{name: "free", addr: "127.0.0.1:" + strconv.Itoa(freePort(t)), want: PortFree},
		{name: "in use", addr: "127.0.0.1:" + strconv.Itoa(heldPort), want: PortInUse, wantErr: syscall.EADDRINUSE,
			wantHolder: Holder{PID: os.Getpid(), Comm: self.Comm}, wantIn: "in use by pid " + strconv.Itoa(os.Getpid())},
		// 192.0.2.1 is TEST-NET-1 (RFC 5737): never a host's address.
		{name: "not local", addr: "192.0.2.1:" + strconv.Itoa(heldPort), skip: nonlocalBind, want: PortNotLocal,
			wantErr: syscall.EADDRNOTAVAIL, wantIn: "not an address of this host"},
		{name: "privileged", addr: "127.0.0.1:1", skip: mayBindPrivileged, want: PortDenied, wantErr: syscall.EACCES, wantIn: "below 1024"},
		{name: "unbindable", addr: "127.0.0.1:99999", want: PortUnbindable, wantIn: "cannot bind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip != nil {
				if why := tt.skip(); why != "" {
					t.Skip(why)
				}
			}
			got := CheckPort(t.Context(), tt.addr)
			if got.State != tt.want {
				t.Fatalf("CheckPort(%s).State = %d (%v), want %d", tt.addr, got.State, got.Err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(got.Err, tt.wantErr) {
				t.Errorf("Err = %v, want %v", got.Err, tt.wantErr)
			}
			if tt.want == PortFree && (got.Err != nil || !got.Free() || got.Problem() != "") {
				t.Errorf("free: got Err %v, Problem %q", got.Err, got.Problem())
			}
			if got.Holder != tt.wantHolder {
				t.Errorf("Holder = %+v, want %+v", got.Holder, tt.wantHolder)
			}
			if !strings.Contains(got.Problem(), tt.wantIn) {
				t.Errorf("Problem() = %q, want it to hold %q", got.Problem(), tt.wantIn)
			}
		})
	}
}

func TestHolderString(t *testing.T) {
	tests := []struct {
		h    Holder
		want string
	}{
		{Holder{}, ""},
		{Holder{PID: 7, Comm: "python3"}, "pid 7 (python3)"},
		{Holder{Hidden: true}, "a process this user may not inspect (another user's)"},
	}
	for _, tt := range tests {
		if got := tt.h.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.h, got, tt.want)
		}
	}
}

// freePort is a port nothing listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func nonlocalBind() string {
	if b, _ := os.ReadFile("/proc/sys/net/ipv4/ip_nonlocal_bind"); strings.TrimSpace(string(b)) == "1" {
		return "net.ipv4.ip_nonlocal_bind=1: this host binds any address"
	}
	return ""
}

func mayBindPrivileged() string {
	if os.Geteuid() == 0 {
		return "running as root, which may bind a port below 1024"
	}
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n <= 1 {
			return "net.ipv4.ip_unprivileged_port_start=" + strconv.Itoa(n) + ": any user binds port 1"
		}
	}
	return ""
}
