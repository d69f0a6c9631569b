package group

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/plan"
)

// ErrLeaderNotLocal: on rank 0, the leader's address is another host's.
var ErrLeaderNotLocal = errors.New("the leader's address is not this host's")

// resolveEvery spaces lookups of a name that does not resolve yet.
const resolveEvery = time.Second

// Resolve looks host up, retrying until timeout while it does not
// resolve: a LeaderWorkerSet leader's headless-service name appears in
// DNS only some time after its pod starts.
func Resolve(ctx context.Context, host string, timeout time.Duration) ([]net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err == nil && len(addrs) > 0 {
			ips := make([]net.IP, len(addrs))
			for i, a := range addrs {
				ips[i] = a.IP
			}
			return ips, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the leader's name %s does not resolve within %s: %v", host, timeout, err)
		case <-time.After(resolveEvery):
		}
	}
}

// CheckLeader runs on rank 0 before the control channel opens: the
// leader's address, as the orchestrator gives it, must be one of this
// host's (else this host is not rank 0, and every rank would wait for
// a rank 0 that does not listen), and each port must be free and
// outside the kernel's ephemeral range (where an outgoing connection
// may take it at any moment).
func CheckLeader(ctx context.Context, leader string, ports []Port, timeout time.Duration) error {
	ips, err := Resolve(ctx, leader, timeout)
	if err != nil {
		return err
	}
	local, err := localIPs()
	if err != nil {
		return fmt.Errorf("cannot list this host's addresses: %w", err)
	}
	if !anyLocal(ips, local) {
		return fmt.Errorf("%w: %s is %s, and this host has %s; this host was placed as rank 0, so the orchestrator's first host must be this one",
			ErrLeaderNotLocal, leader, joinIPs(ips), joinIPs(local))
	}
	return CheckPorts(ctx, ports)
}

// CheckPorts checks that each port is free (on every address: proc.CheckPort
// binds it for a moment) and outside the kernel's ephemeral range.
func CheckPorts(ctx context.Context, ports []Port) error {
	lo, hi, rangeErr := ephemeralRange()
	for _, p := range ports {
		if rangeErr == nil && p.Port >= lo && p.Port <= hi {
			return fmt.Errorf("%s %d is inside this host's ephemeral port range %d-%d (net.ipv4.ip_local_port_range), where any outgoing connection may take it; choose a port below %d", p.Name, p.Port, lo, hi, lo)
		}
		switch c := proc.CheckPort(ctx, ":"+strconv.Itoa(p.Port)); c.State {
		case proc.PortFree:
		case proc.PortUnbindable:
			return fmt.Errorf("%s %d is not free on this host: %w", p.Name, p.Port, c.Err)
		default:
			return fmt.Errorf("%s %d is not free on this host: %s: %w", p.Name, p.Port, c.Problem(), c.Err)
		}
	}
	return nil
}

// Port is one port rank 0 needs, named by the setting it comes from.
type Port struct {
	Name string
	Port int
}

// RankZeroPorts are the ports rank 0 takes: sglaunch's control channel
// and SGLang's from --dist-init-addr (cluster.LeaderPorts).
func RankZeroPorts(p *plan.Plan) []Port {
	ports := []Port{{Name: "multinode.control_port", Port: p.MultiNode.ControlPort}}
	for _, port := range cluster.LeaderPorts(p) {
		ports = append(ports, Port{Name: "multinode.dist_init_port", Port: port})
	}
	return ports
}

func localIPs() ([]net.IP, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP)
		}
	}
	return out, nil
}

func anyLocal(ips, local []net.IP) bool {
	for _, ip := range ips {
		for _, l := range local {
			if ip.Equal(l) {
				return true
			}
		}
	}
	return false
}

func joinIPs(ips []net.IP) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ", ")
}

// ephemeralRange reads the kernel's range of ports for outgoing
// connections.
func ephemeralRange() (lo, hi int, err error) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("ip_local_port_range: %q", b)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("ip_local_port_range: %q", b)
	}
	return lo, hi, nil
}

// InterfaceIP is the first IPv4 address of a network interface (else
// its first address).
func InterfaceIP(name string) (string, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return "", fmt.Errorf("multinode.interface %s: %w", name, err)
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		return "", fmt.Errorf("multinode.interface %s: %w", name, err)
	}
	var first string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if n.IP.To4() != nil {
			return n.IP.String(), nil
		}
		if first == "" {
			first = n.IP.String()
		}
	}
	if first == "" {
		return "", fmt.Errorf("multinode.interface %s has no address", name)
	}
	return first, nil
}
