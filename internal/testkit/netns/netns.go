//go:build linux

package netns

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Cluster is a set of nodes on one bridge.
type Cluster struct {
	Nodes  []*Node
	HostIP string // the root namespace's address on the bridge
	Subnet string // the nodes' /24, as CIDR
	Bridge string // the bridge's interface name in the root namespace

	tag    string
	closed atomic.Bool
}

// Node is one network namespace of a cluster.
type Node struct {
	Index int
	Name  string // the namespace's name, as `ip netns` lists it
	IP    string // its address on the bridge (its interface is eth0)

	hostVeth string // the root side of its veth pair
}

const (
	// prefix starts every name this package makes: namespaces, the
	// bridge and the root side of each veth pair.
	prefix = "sgk"
	// netnsDir is where `ip netns` keeps its namespaces.
	netnsDir = "/run/netns"
	// maxNodes keeps the root veth names within IFNAMSIZ.
	maxNodes = 99
	// killTimeout bounds how long killing a node's processes may take:
	// generous, for a loaded machine.
	killTimeout = 30 * time.Second
	// cmdTimeout bounds one ip command.
	cmdTimeout = 30 * time.Second
)

var seq atomic.Int64

// New starts a cluster of n nodes and stops it when the test ends. It
// fails the test when the cluster cannot be made.
func New(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Start(n)
	if err != nil {
		t.Fatalf("netns: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("netns: %v", err)
		}
	})
	return c
}

// Start makes a cluster of n nodes; Close tears it down. It is New for
// callers without a testing.TB (a TestMain). Before it makes anything it
// sweeps the leftovers of earlier runs that were killed.
func Start(n int) (*Cluster, error) {
	if n < 1 || n > maxNodes {
		return nil, fmt.Errorf("want 1 to %d nodes, got %d", maxNodes, n)
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("network namespaces need root (run the tests as root, as CI does)")
	}
	for _, tool := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s: %w (Debian: iproute2, util-linux)", tool, err)
		}
	}
	unlock, err := lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	Sweep()
	x, err := freeSubnet()
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		HostIP: fmt.Sprintf("10.213.%d.254", x),
		Subnet: fmt.Sprintf("10.213.%d.0/24", x),
		tag:    prefix + strconv.FormatInt(int64(os.Getpid()), 36) + "-" + strconv.FormatInt(seq.Add(1), 36),
	}
	c.Bridge = c.tag
	if err := c.build(n, x); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) build(n, x int) error {
	// nf_call_iptables 0: a host whose FORWARD chain drops (Docker's)
	// must not drop bridged traffic when br_netfilter is loaded.
	if err := ip("link", "add", c.Bridge, "type", "bridge", "nf_call_iptables", "0"); err != nil {
		if err := ip("link", "add", c.Bridge, "type", "bridge"); err != nil {
			return err
		}
	}
	if err := ip("addr", "add", c.HostIP+"/24", "dev", c.Bridge); err != nil {
		return err
	}
	if err := ip("link", "set", c.Bridge, "up"); err != nil {
		return err
	}
	for i := range n {
		nd := &Node{
			Index:    i,
			Name:     fmt.Sprintf("%s-n%d", c.tag, i),
			IP:       fmt.Sprintf("10.213.%d.%d", x, i+1),
			hostVeth: fmt.Sprintf("%sv%d", c.tag, i),
		}
		if len(nd.hostVeth) > 15 {
			return fmt.Errorf("interface name %q is longer than 15 bytes", nd.hostVeth)
		}
		c.Nodes = append(c.Nodes, nd)
		steps := [][]string{
			{"netns", "add", nd.Name},
			{"link", "add", nd.hostVeth, "type", "veth", "peer", "name", "eth0", "netns", nd.Name},
			{"link", "set", nd.hostVeth, "master", c.Bridge},
			{"link", "set", nd.hostVeth, "up"},
			{"-n", nd.Name, "link", "set", "lo", "up"},
			{"-n", nd.Name, "addr", "add", nd.IP + "/24", "dev", "eth0"},
			{"-n", nd.Name, "link", "set", "eth0", "up"},
		}
		for _, s := range steps {
			if err := ip(s...); err != nil {
				return fmt.Errorf("node %d: %w", i, err)
			}
		}
	}
	return nil
}

// Close kills every process in every node, then deletes the namespaces
// and the bridge (the veth pairs go with their namespaces). It is safe
// to call more than once.
func (c *Cluster) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	var errs []error
	if err := c.Kill(); err != nil {
		errs = append(errs, err)
	}
	for _, nd := range c.Nodes {
		if err := ip("netns", "del", nd.Name); err != nil {
			errs = append(errs, err)
		}
	}
	if linkExists(c.Bridge) {
		if err := ip("link", "del", c.Bridge); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Kill kills every process in every node and waits until they are gone.
// The nodes stay, ready for new processes.
func (c *Cluster) Kill() error {
	var errs []error
	for _, nd := range c.Nodes {
		if err := nd.Kill(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Partition cuts node i off the network (the bridge, the host and the
// other nodes); its loopback still works. Packets to and from it are
// dropped, so a connection attempt times out rather than being refused.
func (c *Cluster) Partition(i int) error {
	return ip("link", "set", c.Nodes[i].hostVeth, "down")
}

// Heal undoes Partition(i).
func (c *Cluster) Heal(i int) error {
	return ip("link", "set", c.Nodes[i].hostVeth, "up")
}

// Path is the namespace's file, for nsenter --net= or setns(2).
func (n *Node) Path() string { return filepath.Join(netnsDir, n.Name) }

// Command is exec.CommandContext for a program that runs inside the
// node's network namespace (through nsenter, which execs it: the
// command's pid is the program's).
func (n *Node) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + n.Path(), "--", name}, args...)...)
}

// Pids lists the processes in the node's namespace (never this
// process's own, whose main thread a Do may be using).
func (n *Node) Pids() ([]int, error) {
	out, err := ipOutput("netns", "pids", n.Name)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(out) {
		if p, err := strconv.Atoi(f); err == nil && p != os.Getpid() {
			pids = append(pids, p)
		}
	}
	return pids, nil
}

// Find returns the processes in the node whose command line holds
// substr (its arguments joined by blanks).
func (n *Node) Find(substr string) ([]int, error) {
	pids, err := n.Pids()
	if err != nil {
		return nil, err
	}
	var out []int
	for _, pid := range pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), substr) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// Kill kills every process in the node (SIGKILL) and waits until none
// is left. A process the test started is then reaped by its cmd.Wait.
func (n *Node) Kill() error {
	return killNetns(n.Name)
}

// Inode is the namespace's inode: what readlink /proc/self/ns/net shows
// as net:[INODE] inside the node.
func (n *Node) Inode() (uint64, error) {
	return nsInode(n.Path())
}

// Dial connects to address from inside the node: the socket is made in
// the node's namespace, so 127.0.0.1 is the node's own loopback.
func (n *Node) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var conn net.Conn
	err := n.Do(func() error {
		var d net.Dialer
		var err error
		conn, err = d.DialContext(ctx, network, address)
		return err
	})
	return conn, err
}

// Listen listens on address inside the node.
func (n *Node) Listen(network, address string) (net.Listener, error) {
	var l net.Listener
	err := n.Do(func() error {
		var err error
		l, err = net.Listen(network, address)
		return err
	})
	return l, err
}
