//go:build linux

package netns

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	// testkit registers the -update flag that go test ./... -update
	// passes to every package.
	_ "github.com/sglaunch/sglaunch/internal/testkit"
)

// Generous bounds for a loaded 2-core machine; dialTimeout is how long a
// dial waits before the test calls the peer unreachable.
const (
	testTimeout = time.Minute
	dialTimeout = 2 * time.Second
)

// serve accepts connections on l and writes tag to each.
func serve(l net.Listener, tag string) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		fmt.Fprintln(conn, tag)
		conn.Close()
	}
}

// greet dials addr from node n and returns the first line it is sent.
func greet(n *Node, addr string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	conn, err := n.Dial(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(dialTimeout))
	line, err := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimSpace(line), err
}

func listen(t *testing.T, n *Node, addr, tag string) string {
	t.Helper()
	l, err := n.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s in node %d: %v", addr, n.Index, err)
	}
	t.Cleanup(func() { l.Close() })
	go serve(l, tag)
	return l.Addr().String()
}

func TestNodesReachEachOther(t *testing.T) {
	c := New(t, 2)
	n0, n1 := c.Nodes[0], c.Nodes[1]
	if n0.IP == n1.IP || n0.Name == n1.Name {
		t.Fatalf("nodes share an address or name: %+v %+v", n0, n1)
	}
	addr := listen(t, n0, n0.IP+":0", "node0")
	if got, err := greet(n1, addr); err != nil || got != "node0" {
		t.Fatalf("node 1 dialling node 0 at %s: got %q, %v; want %q", addr, got, err, "node0")
	}
	// The host reaches a node through the bridge, and a node the host.
	conn, err := net.DialTimeout("tcp", addr, dialTimeout)
	if err != nil {
		t.Fatalf("host dialling node 0 at %s: %v", addr, err)
	}
	conn.Close()
	hl, err := net.Listen("tcp", c.HostIP+":0")
	if err != nil {
		t.Fatalf("listen on the bridge address: %v", err)
	}
	defer hl.Close()
	go serve(hl, "host")
	if got, err := greet(n1, hl.Addr().String()); err != nil || got != "host" {
		t.Fatalf("node 1 dialling the host at %s: got %q, %v", hl.Addr(), got, err)
	}
}

func TestEachNodeHasItsOwnLoopback(t *testing.T) {
	c := New(t, 2)
	n0, n1 := c.Nodes[0], c.Nodes[1]
	addr := listen(t, n0, "127.0.0.1:0", "node0")
	if got, err := greet(n0, addr); err != nil || got != "node0" {
		t.Fatalf("node 0 dialling its own %s: got %q, %v", addr, got, err)
	}
	if got, err := greet(n1, addr); err == nil {
		t.Fatalf("node 1 reached node 0's loopback listener %s (got %q)", addr, got)
	}
	// The same port on node 1's loopback is free: the port spaces are
	// separate too.
	listen(t, n1, addr, "node1")
	if got, err := greet(n1, addr); err != nil || got != "node1" {
		t.Fatalf("node 1 dialling its own %s: got %q, %v; want %q", addr, got, err, "node1")
	}
}

func TestPartitionAndHeal(t *testing.T) {
	c := New(t, 2)
	n0, n1 := c.Nodes[0], c.Nodes[1]
	addr := listen(t, n0, n0.IP+":0", "node0")
	lo := listen(t, n0, "127.0.0.1:0", "lo")
	if _, err := greet(n1, addr); err != nil {
		t.Fatalf("before the partition: %v", err)
	}
	if err := c.Partition(0); err != nil {
		t.Fatal(err)
	}
	if got, err := greet(n1, addr); err == nil {
		t.Fatalf("node 1 reached partitioned node 0 (got %q)", got)
	}
	if conn, err := net.DialTimeout("tcp", addr, dialTimeout); err == nil {
		conn.Close()
		t.Fatal("the host reached partitioned node 0")
	}
	if got, err := greet(n0, lo); err != nil || got != "lo" {
		t.Fatalf("partitioned node 0's own loopback: got %q, %v", got, err)
	}
	if err := c.Heal(0); err != nil {
		t.Fatal(err)
	}
	var err error
	for deadline := time.Now().Add(testTimeout); time.Now().Before(deadline); {
		if _, err = greet(n1, addr); err == nil {
			return
		}
	}
	t.Fatalf("after the heal node 1 still cannot reach node 0: %v", err)
}

func TestCommandRunsInTheNode(t *testing.T) {
	c := New(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for _, n := range c.Nodes {
		out, err := n.Command(ctx, "readlink", "/proc/self/ns/net").Output()
		if err != nil {
			t.Fatalf("node %d: %v", n.Index, err)
		}
		ino, err := n.Inode()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.TrimSpace(string(out)), "net:["+strconv.FormatUint(ino, 10)+"]"; got != want {
			t.Errorf("node %d: got %q, want %q", n.Index, got, want)
		}
		out, err = n.Command(ctx, "ip", "-4", "-o", "addr", "show", "dev", "eth0").Output()
		if err != nil || !strings.Contains(string(out), " "+n.IP+"/24 ") {
			t.Errorf("node %d: ip addr shows %q (%v), want %s", n.Index, out, err, n.IP)
		}
	}
}

// TestCloseKillsProcessesAndRemovesAll pins the teardown: a process left
// running in a node (a daemon that forked away from the test) is killed,
// and the namespaces and the bridge are gone.
func TestCloseKillsProcessesAndRemovesAll(t *testing.T) {
	c, err := Start(2)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	// sh forks sleep into the background and exits: the sleep is no
	// child of the test's.
	out, err := c.Nodes[1].Command(ctx, "sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	if pids, err := c.Nodes[1].Pids(); err != nil || len(pids) != 1 || pids[0] != pid {
		t.Fatalf("node 1's pids: got %v (%v), want [%d]", pids, err, pid)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		// A killed orphan is reaped by init at once, but let it.
		time.Sleep(time.Second)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("sleep %d survived Close: %s", pid, b)
		}
	}
	for _, n := range c.Nodes {
		if _, err := os.Stat(n.Path()); err == nil {
			t.Errorf("namespace %s survived Close", n.Name)
		}
	}
	if linkExists(c.Bridge) {
		t.Errorf("bridge %s survived Close", c.Bridge)
	}
}

// TestSweepRemovesLeftoversOfDeadRuns pins the sweep: a namespace named
// for a pid that is gone (a run killed before its cleanup) is removed,
// with its processes; one of a live process is kept.
func TestSweepRemovesLeftoversOfDeadRuns(t *testing.T) {
	// A pid that is surely dead: a child that has exited and been reaped.
	dead := prefix + strconv.FormatInt(int64(deadPid(t)), 36) + "-1-n0"
	live := prefix + strconv.FormatInt(int64(os.Getppid()), 36) + "-1-n0"
	for _, name := range []string{dead, live} {
		if err := ip("netns", "add", name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ip("netns", "del", name) })
	}
	Sweep()
	if _, err := os.Stat(netnsDir + "/" + dead); err == nil {
		t.Errorf("the sweep kept %s, whose pid is dead", dead)
	}
	if _, err := os.Stat(netnsDir + "/" + live); err != nil {
		t.Errorf("the sweep removed %s, whose pid is alive: %v", live, err)
	}
}

// TestGoneCountsZombies pins that a zombie counts as gone: the test
// binary a timeout killed stays one until its parent reaps it, and its
// leftovers must be swept meanwhile.
func TestGoneCountsZombies(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	// Not reaped yet: a zombie once it has exited.
	for deadline := time.Now().Add(testTimeout); !Gone(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("exited child %d is not gone", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err != nil || !strings.Contains(string(b), ") Z ") {
		t.Errorf("child %d: want a zombie, got %q (%v)", pid, b, err)
	}
	_ = cmd.Wait()
	if Gone(os.Getpid()) {
		t.Error("this process counts as gone")
	}
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
