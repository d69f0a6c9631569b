//go:build linux

package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Do runs fn on an OS thread that has joined the node's namespace:
// sockets fn opens belong to the node. Goroutines fn starts do not run
// there. The thread returns to its own namespace afterwards; when it
// cannot, it stays locked and is thrown away, so that no other goroutine
// ever runs in the node by accident.
func (n *Node) Do(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// The thread may be the process's main thread, whose namespace
		// /proc/PID/ns/net (and so `ip netns pids`) shows: it must go
		// back, not stay in the node.
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			errc <- err
			return
		}
		defer home.Close()
		f, err := os.Open(n.Path())
		if err != nil {
			errc <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %w", n.Name, err)
			return
		}
		err = fn()
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

// lock serialises the sweep and the choice of a subnet between
// processes: two test binaries starting clusters at once must not pick
// the same /24.
func lock() (unlock func(), err error) {
	dir := "/run/lock"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "sglaunch-netns.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

// freeSubnet picks X of 10.213.X.0/24 that no address or route of the
// root namespace uses, starting from one derived from the pid.
func freeSubnet() (int, error) {
	used := map[int]bool{}
	for _, args := range [][]string{{"-4", "-o", "addr", "show"}, {"-4", "route", "show", "table", "all"}} {
		out, err := ipOutput(args...)
		if err != nil {
			return 0, err
		}
		for _, f := range strings.Fields(out) {
			addr, _, _ := strings.Cut(f, "/")
			ip := net.ParseIP(addr).To4()
			if ip != nil && ip[0] == 10 && ip[1] == 213 {
				used[int(ip[2])] = true
			}
		}
	}
	start := os.Getpid() % 256
	for k := range 256 {
		if x := (start + k) % 256; !used[x] {
			return x, nil
		}
	}
	return 0, errors.New("every /24 of 10.213.0.0/16 is in use")
}

// Sweep removes what runs killed before their cleanup left: namespaces
// (and the processes in them) and bridges whose names carry a dead pid.
// Start calls it; a test binary may call it too.
func Sweep() {
	entries, _ := os.ReadDir(netnsDir)
	for _, e := range entries {
		if stale(e.Name()) {
			_ = killNetns(e.Name())
			_ = ip("netns", "del", e.Name())
		}
	}
	out, _ := ipOutput("-o", "link", "show")
	for _, l := range strings.Split(out, "\n") {
		// "7: sgk1a2b-1: <BROADCAST,…" or "8: sgk1a2b-1v0@if2: …"
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if stale(name) {
			_ = ip("link", "del", name)
		}
	}
}

// stale says whether name is one of ours and made by a process that is
// gone.
func stale(name string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	p, _, ok := strings.Cut(rest, "-")
	if !ok {
		return false
	}
	pid, err := strconv.ParseInt(p, 36, 64)
	if err != nil || pid <= 0 || pid > 1<<22 {
		return false
	}
	return int(pid) != os.Getpid() && Gone(int(pid))
}

// Gone says whether process pid has ended: it does not exist, or it is a
// zombie (a killed test binary waits for its parent, or an init that
// reaps late, as one that does not reap at all).
func Gone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// "PID (COMM) STATE …": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// killNetns kills every process in namespace name until none is left:
// a process may fork while it is being killed.
func killNetns(name string) error {
	deadline := time.Now().Add(killTimeout)
	for {
		out, err := ipOutput("netns", "pids", name)
		if err != nil {
			if _, serr := os.Stat(filepath.Join(netnsDir, name)); errors.Is(serr, os.ErrNotExist) {
				return nil
			}
			return err
		}
		var pids []string
		for _, p := range strings.Fields(out) {
			// Never this process: its main thread is in a node only
			// while a Do runs on it.
			if p != strconv.Itoa(os.Getpid()) {
				pids = append(pids, p)
			}
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %s in node %s survive SIGKILL for %v", strings.Join(pids, " "), name, killTimeout)
		}
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func nsInode(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

func ip(args ...string) error {
	_, err := ipOutput(args...)
	return err
}

func ipOutput(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "ip", args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}
