//go:build linux

package multinode

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// controlPort is multinode.control_port's default, where rank 0 listens.
const controlPort = 19900

// rssKiB is a process's resident memory, from /proc.
func rssKiB(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// TestHostilePeersCannotHarmGroup pins issue 22's fifth and sixth
// defects through the binary: before the last worker joins, a stranger
// (no group secret, a copied report) says hello every 20 ms and sends a
// forged failure naming rank 1, and a flood of connections sends 7 MiB
// hellos. The group still forms, nobody exits 2, nobody is blamed, the
// refusals disclose none of rank 0's settings, rank 0's memory stays
// bounded, and a requested stop still ends every rank with 0.
func TestHostilePeersCannotHarmGroup(t *testing.T) {
	g := newGroup(t, 2, "")
	r0 := g.start(0, g.lwsEnv(0))
	control := net.JoinHostPort(g.c.Nodes[0].IP, strconv.Itoa(controlPort))
	attacker := g.c.Nodes[1]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Wait until rank 0 listens.
	deadline := time.Now().Add(readyTimeout)
	for {
		c, err := attacker.Dial(ctx, "tcp", control)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rank 0 never listened on %s:\n%s", control, r0.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	rssBefore := rssKiB(r0.pid)

	// The stranger.
	var mu sync.Mutex
	var refusals []string
	hellos := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		report := `{"rank":1,"node":"gpu02\nsglaunch: error: forged","group":"lws:x","fingerprint":"x","plan":{"python":"/usr/bin/python3","module":"sglang.launch_server","argv":[],"env":{"NCCL_PROTO":"Simple"}}}`
		for ctx.Err() == nil {
			c, err := attacker.Dial(ctx, "tcp", control)
			if err != nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			r := bufio.NewReader(c)
			r.ReadString('\n') // the challenge
			fmt.Fprintf(c, "%s {\"type\":\"hello\",\"nonce\":\"n\",\"report\":%s}\n", strings.Repeat("00", 32), report)
			fmt.Fprintf(c, "%s {\"type\":\"fail\",\"rank\":1,\"reason\":\"its server exited, exit status 137 (SIGKILL)\"}\n", strings.Repeat("11", 32))
			line, _ := r.ReadString('\n')
			c.Close()
			mu.Lock()
			hellos++
			if line != "" {
				refusals = append(refusals, line)
			}
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()

	// The flood: 150 connections, every other one sending a 7 MiB hello.
	peak := rssBefore
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for ctx.Err() == nil {
			peak = max(peak, rssKiB(r0.pid))
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var fw sync.WaitGroup
	chunk := []byte(strings.Repeat("a", 64<<10))
	for i := range 150 {
		fw.Add(1)
		go func() {
			defer fw.Done()
			c, err := attacker.Dial(ctx, "tcp", control)
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if i%2 == 0 {
				time.Sleep(2 * time.Second) // idle
				return
			}
			c.Write([]byte("- {\"type\":\"hello\",\"x\":\""))
			for range 7 << 20 / len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}()
	}
	fw.Wait()
	rssAfterFlood := rssKiB(r0.pid)

	// The real worker joins while the stranger goes on.
	g.start(1, g.lwsEnv(1))
	g.waitReady()
	cancel()
	wg.Wait()
	<-sampled
	out := r0.stderr.String()
	for _, bad := range []string{"exit status 137", "group failed", "does not run one plan"} {
		if strings.Contains(out, bad) {
			t.Errorf("rank 0 logged %q after the stranger's messages:\n%s", bad, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "sglaunch: error: forged") {
			t.Errorf("an injected log line: %q", line)
		}
	}
	if !strings.Contains(out, "refused a connection") {
		t.Errorf("rank 0 does not log the refusals:\n%s", out)
	}
	mu.Lock()
	n, refused := hellos, len(refusals)
	for _, line := range refusals {
		for _, secret := range []string{"NCCL", "lws:", "python", "sglang", "30000", "20000"} {
			if strings.Contains(line, secret) {
				t.Errorf("a refusal discloses %q: %s", secret, line)
			}
		}
	}
	mu.Unlock()
	if n == 0 {
		t.Fatal("the stranger never got through to say hello")
	}
	t.Logf("stranger: %d hellos and forged failures, %d refusals read, none admitted; rank 0's RSS %d MiB before, at most %d MiB during 150 connections (75 × 7 MiB hellos), %d MiB after",
		n, refused, rssBefore>>10, peak>>10, rssAfterFlood>>10)
	if peak-rssBefore > 64<<10 {
		t.Errorf("rank 0's RSS grew %d MiB under the flood, want at most 64 MiB", (peak-rssBefore)>>10)
	}
	for _, r := range g.ranks {
		syscall.Kill(r.pid, syscall.SIGTERM)
	}
	for _, r := range g.ranks {
		if code := r.wait(t); code != 0 {
			t.Errorf("rank %d exited %d after the stop, want 0", r.i, code)
		}
	}
}

// TestWrongSecretWorkerNeverExitsTwo: a worker with another secret (a
// man in the middle's, another job's) is refused; it tries again until
// its rendezvous timeout and exits 1, never 2; rank 0 then forms the
// group with the right worker.
func TestWrongSecretWorkerNeverExitsTwo(t *testing.T) {
	g := newGroup(t, 2, "  rendezvous_timeout: 4s\n")
	g.env = func(i int, env []string) []string {
		if i != 1 {
			return env
		}
		return append(env, "SGLAUNCH_GROUP_SECRET=another-secret-of-another-group")
	}
	r0 := g.start(0, g.lwsEnv(0))
	bad := g.start(1, g.lwsEnv(1))
	if code := bad.wait(t); code != 1 {
		t.Errorf("the wrong-secret worker exited %d, want 1:\n%s", code, bad.stderr.String())
	}
	if !strings.Contains(bad.stderr.String(), "did not authenticate") {
		t.Errorf("the worker does not say why:\n%s", bad.stderr.String())
	}
	if code := r0.wait(t); code != 1 {
		t.Errorf("rank 0 exited %d after its rendezvous timeout, want 1:\n%s", code, r0.stderr.String())
	}
}
