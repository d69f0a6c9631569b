package group

import (
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestLeaderBindsItsOwnAddressNotEvery pins issue 22's "the listener
// binds the cluster interface (not every address)": rank 0 listens on
// the address its Addr names (here loopback) or on Bind (the
// multinode.interface's address), never on 0.0.0.0, so the control
// port is not offered on the host's other networks; an Addr that is not
// this host's is refused before anything listens.
func TestLeaderBindsItsOwnAddressNotEvery(t *testing.T) {
	for _, tt := range []struct {
		name, addr, bind, want string
	}{
		{"the leader's address", "127.0.0.1:0", "", "127.0.0.1"},
		{"the interface's address", "localhost:0", "127.0.0.1", "127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(report(0, same(0)), 2, tt.addr)
			cfg.Bind = tt.bind
			cfg.Socket = filepath.Join(t.TempDir(), "run", "control.sock")
			l, err := Listen(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			got := l.ListenAddr().(*net.TCPAddr)
			if got.IP.String() != tt.want || got.IP.IsUnspecified() {
				t.Errorf("listens on %v, want %s, never every address", got, tt.want)
			}
			// Another of this host's addresses does not reach it.
			if other := nonLoopback(t); other != nil {
				c, err := net.DialTimeout("tcp", net.JoinHostPort(other.String(), strconv.Itoa(got.Port)), time.Second)
				if err == nil {
					c.Close()
					t.Errorf("the control port answers on %s too", other)
				}
			}
		})
	}
	// An address of the documentation ranges that this host does not have.
	local, err := localIPs()
	if err != nil {
		t.Fatal(err)
	}
	for _, foreign := range []string{"203.0.113.77", "198.51.100.77", "192.0.2.77"} {
		if anyLocal([]net.IP{net.ParseIP(foreign)}, local) {
			continue
		}
		cfg := config(report(0, same(0)), 2, net.JoinHostPort(foreign, "19900"))
		cfg.Bind = ""
		if l, err := Listen(cfg); !errors.Is(err, ErrLeaderNotLocal) {
			if l != nil {
				l.Close()
			}
			t.Errorf("%s, an address not this host's: got %v, want ErrLeaderNotLocal", foreign, err)
		}
		break
	}
}

// nonLoopback is one of this host's addresses other than loopback, or
// nil where it has none.
func nonLoopback(t *testing.T) net.IP {
	t.Helper()
	ips, err := localIPs()
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range ips {
		if v4 := ip.To4(); v4 != nil && !v4.IsLoopback() {
			return v4
		}
	}
	return nil
}
