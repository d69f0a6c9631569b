package group

import (
	"bufio"
	bs "bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// The hostile peers of issue 22: rank 0's control channel listened on
// every address and believed anyone. These tests pin that a peer
// without the group's secret can take no rank's place, fail no group,
// name no rank, learn none of rank 0's settings, and cannot exhaust
// rank 0's memory or its listener.

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bs.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logged gives cfg a logger that writes text into the returned buffer.
func logged(cfg *Config) *syncBuffer {
	b := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return b
}

// stranger is a worker of another secret: it has copied rank r's
// report (the plan, the group id), but not the secret.
func stranger(r Report, addr string) *Worker {
	cfg := config(r, 3, addr)
	cfg.Secret = []byte("not-the-group-secret-0123456789")
	cfg.RendezvousTimeout = 2 * time.Second
	return NewWorker(cfg)
}

// readLine reads one raw line from nc.
func readLine(t *testing.T, r *bufio.Reader) (string, error) {
	t.Helper()
	return r.ReadString('\n')
}

// TestStrangerHelloBeforeLastWorkerJoinsIsHarmless pins issue 22's
// fifth defect: one hello from any host before the last worker joined
// aborted the group with exit 2 (its report was taken for a drifted
// rank), or took the rank's place. Now it is refused, the group forms,
// and nobody is refused for good.
func TestStrangerHelloBeforeLastWorkerJoinsIsHarmless(t *testing.T) {
	cfg := config(report(0, same(0)), 3, "127.0.0.1:0")
	logs := logged(&cfg)
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	addr := l.ListenAddr().String()
	l.cfg.Addr = addr
	// A sender retrying every 20 ms with a drifted report for rank 2.
	drifted := report(2, map[string]string{"NCCL_PROTO": "Simple"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	strangerErr := make(chan error, 1)
	go func() {
		var last error
		for ctx.Err() == nil {
			s := stranger(drifted, addr)
			_, last = s.Rendezvous(ctx)
			s.Close()
			time.Sleep(20 * time.Millisecond)
		}
		strangerErr <- last
	}()
	w1 := NewWorker(config(report(1, same(1)), 3, addr))
	t.Cleanup(w1.Close)
	go w1.Rendezvous(t.Context())
	time.Sleep(300 * time.Millisecond) // the stranger tries while rank 2 is missing
	w2 := NewWorker(config(report(2, same(2)), 3, addr))
	t.Cleanup(w2.Close)
	go w2.Rendezvous(t.Context())
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatalf("rank 0: %v (the stranger harmed the group)", err)
	}
	cancel()
	if err := <-strangerErr; errors.Is(err, ErrRefused) {
		t.Errorf("the stranger was refused for good (exit 2 on its side): %v", err)
	}
	select {
	case <-l.Failed():
		t.Fatalf("the group failed: %v", l.Failure())
	default:
	}
	if !strings.Contains(logs.String(), "did not authenticate") && !strings.Contains(logs.String(), "does not authenticate") {
		t.Errorf("the refusal is not logged:\n%s", logs)
	}
}

// TestRefusalDisclosesNothing: a peer without the secret gets a refusal
// that holds none of rank 0's settings and not its group id (issue 22:
// the refusal sent 30 of rank 0's settings, a wrong-group refusal the
// right group id).
func TestRefusalDisclosesNothing(t *testing.T) {
	l := listenTwo(t)
	nc := dial(t, l)
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(wait))
	if _, err := readLine(t, r); err != nil {
		t.Fatal(err)
	}
	other := report(1, map[string]string{"NCCL_PROTO": "Simple"})
	other.Group = "test:other"
	fmt.Fprintf(nc, "%s %s\n", strings.Repeat("00", 32), mustJSON(t, message{Type: msgHello, Nonce: "n", Report: &other}))
	line, _ := readLine(t, r)
	for _, secret := range []string{"test:1", "NCCL_PROTO", "LL", "0.5.10", "python3", "node0", "20000"} {
		if strings.Contains(line, secret) {
			t.Errorf("the refusal discloses %q: %s", secret, line)
		}
	}
	if !strings.Contains(line, msgRefuse) {
		t.Errorf("no refusal: %q", line)
	}
}

// TestForgedFailureIsDropped pins issue 22's fifth defect's end: a
// squatter's forged failure was logged as "rank 1 … exit status 137",
// blaming an innocent node. A failure without a valid MAC is dropped;
// nobody is blamed; the group runs on.
func TestForgedFailureIsDropped(t *testing.T) {
	l, ws, _ := startGroup(t, 2, same)
	nc := dial(t, l)
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(wait))
	readLine(t, r)
	// Unsigned, then with a made-up MAC, then after a made-up hello.
	fmt.Fprintf(nc, "- %s\n", mustJSON(t, message{Type: msgFail, Rank: 1, Reason: "exit status 137"}))
	nc2 := dial(t, l)
	r2 := bufio.NewReader(nc2)
	nc2.SetDeadline(time.Now().Add(wait))
	readLine(t, r2)
	fmt.Fprintf(nc2, "%s %s\n", strings.Repeat("ab", 32), mustJSON(t, message{Type: msgFail, Rank: 1, Reason: "exit status 137"}))
	time.Sleep(500 * time.Millisecond)
	select {
	case <-l.Failed():
		t.Fatalf("a forged failure failed the group: %v", l.Failure())
	case <-ws[0].Failed():
		t.Fatalf("a forged failure reached the worker: %v", ws[0].Failure())
	default:
	}
}

// TestReplayedHelloIsRefused: a hello captured on one connection (a
// man in the middle, the previous run of the job) does not verify on
// another: the key covers rank 0's fresh nonce.
func TestReplayedHelloIsRefused(t *testing.T) {
	l := listenTwo(t)
	// Capture a genuine hello.
	nc := dial(t, l)
	var captured bs.Buffer
	w := NewWorker(config(report(1, same(1)), 2, l.ListenAddr().String()))
	if _, err := w.hello(newConn(&recordConn{Conn: nc, w: &captured})); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, wait, "rank 1 to join", func() bool { return len(l.peers()) == 1 })
	nc.Close()
	testkit.WaitFor(t, wait, "rank 1 to leave", func() bool { return len(l.peers()) == 0 })
	// Replay it on a new connection.
	nc2 := dial(t, l)
	r := bufio.NewReader(nc2)
	nc2.SetDeadline(time.Now().Add(wait))
	readLine(t, r)
	nc2.Write(captured.Bytes())
	line, _ := readLine(t, r)
	if !strings.Contains(line, "did not authenticate") {
		t.Errorf("a replayed hello got %q", line)
	}
	if n := len(l.peers()); n != 0 {
		t.Errorf("the replayed hello took a rank's place (%d peers)", n)
	}
}

// recordConn records what is written through it.
type recordConn struct {
	net.Conn
	w *bs.Buffer
}

func (c *recordConn) Write(p []byte) (int, error) {
	c.w.Write(p)
	return c.Conn.Write(p)
}

// TestWrongSecretWorkerRefusedNotFatal: a worker of another secret is
// refused, tries again until its rendezvous timeout and ends as an
// incomplete group (exit 1), never as a refusal for good (exit 2, which
// a systemd unit never restarts); rank 0 is unharmed.
func TestWrongSecretWorkerRefusedNotFatal(t *testing.T) {
	l := listenTwo(t)
	s := stranger(report(1, same(1)), l.ListenAddr().String())
	defer s.Close()
	_, err := s.Rendezvous(t.Context())
	if !errors.Is(err, ErrRendezvous) || errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "did not authenticate") {
		t.Fatalf("got %v, want an incomplete rendezvous that says the hello did not authenticate", err)
	}
	if len(l.peers()) != 0 || l.Failure() != nil {
		t.Errorf("rank 0 harmed: %d peers, failure %v", len(l.peers()), l.Failure())
	}
}

// TestFakeRankZeroCannotSteerAWorker pins issue 22's eighth defect: a
// fake rank 0 sent a worker to another --dist-init-addr, or stopped it
// with a forged reason. A rank 0 without the secret is not believed.
func TestFakeRankZeroCannotSteerAWorker(t *testing.T) {
	for _, tt := range []struct {
		name string
		send message
	}{
		{"go elsewhere", message{Type: msgGo, DistInitAddr: "10.6.6.6:20000"}},
		{"refuse for good", message{Type: msgRefuse, Reason: "the group does not run one plan", Table: "forged"}},
		{"stop", message{Type: msgStop, Reason: "forged"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := config(report(0, same(0)), 2, "127.0.0.1:0")
			fake.Secret = []byte("the-man-in-the-middle-secret-0000")
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						c := newConn(nc)
						defer c.close()
						n0 := newNonce()
						c.send(message{Type: msgChallenge, Nonce: n0})
						_, body, err := c.recvRaw(time.Now().Add(wait), maxHello)
						if err != nil {
							return
						}
						m, _ := decode(body)
						c.auth = newSession(fake.Secret, n0, m.Nonce, true)
						c.send(tt.send)
						time.Sleep(200 * time.Millisecond)
					}()
				}
			}()
			cfg := config(report(1, same(1)), 2, ln.Addr().String())
			cfg.RendezvousTimeout = 1500 * time.Millisecond
			w := NewWorker(cfg)
			defer w.Close()
			dist, err := w.Rendezvous(t.Context())
			if dist != "" || !errors.Is(err, ErrRendezvous) || errors.Is(err, ErrRefused) || errors.Is(err, ErrGroupFailed) {
				t.Fatalf("a fake rank 0 steered the worker: dist %q, err %v", dist, err)
			}
		})
	}
}

// TestConnectionFloodIsBounded pins issue 22's sixth defect: 60
// connections × 7 MiB took rank 0 from 24 MB to 890 MB, and more ended
// it out of memory. Now connections are capped, a hello is at most 1
// MiB, and the listener still admits the real worker afterwards.
func TestConnectionFloodIsBounded(t *testing.T) {
	cfg := config(report(0, same(0)), 2, "127.0.0.1:0")
	logs := logged(&cfg)
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	addr := l.ListenAddr().String()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const floods = 200
	peak := make(chan uint64, 1)
	stopSampling := make(chan struct{})
	go func() {
		var most uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapInuse)
			select {
			case <-stopSampling:
				peak <- most
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	chunk := bs.Repeat([]byte("a"), 64<<10)
	var wg sync.WaitGroup
	for i := range floods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := net.DialTimeout("tcp", addr, wait)
			if err != nil {
				return
			}
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(3 * time.Second))
			if i%2 == 0 {
				return // idle: held until the hello timeout, or refused over the cap
			}
			nc.Write([]byte("- {\"type\":\"hello\",\"x\":\""))
			for range 7 << 20 / len(chunk) { // 7 MiB, no newline
				if _, err := nc.Write(chunk); err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stopSampling)
	most := <-peak
	grew := int64(most) - int64(before.HeapInuse)
	t.Logf("heap in use: %d MiB before, at most %d MiB during %d connections (half sending 7 MiB hellos)", before.HeapInuse>>20, most>>20, floods)
	// The bound: maxConns connections × maxHello each, and slack.
	if bound := int64(cfg.maxConns())*maxHello + 32<<20; grew > bound {
		t.Errorf("heap grew %d MiB under the flood, want at most %d MiB", grew>>20, bound>>20)
	}
	w := NewWorker(config(report(1, same(1)), 2, addr))
	defer w.Close()
	go w.Rendezvous(t.Context())
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatalf("the listener no longer admits the worker after the flood: %v", err)
	}
	if !strings.Contains(logs.String(), "refused a connection") {
		t.Errorf("the refusals are not logged:\n%s", logs)
	}
	if n := strings.Count(logs.String(), "level=WARN"); n > 10 {
		t.Errorf("%d warnings for one flood: the log is flooded too", n)
	}
}

// TestAcceptSurvivesTemporaryErrors pins issue 22's sixth defect's end:
// the listener died after one accept error (300 idle connections
// against 256 fds), and never accepted again.
func TestAcceptSurvivesTemporaryErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &failingListener{Listener: ln, fails: 3}
	closed := make(chan struct{})
	defer close(closed)
	defer ln.Close()
	got := make(chan struct{}, 1)
	go acceptLoop(fl, closed, 4, func(string) {}, func(c net.Conn) { c.Close(); got <- struct{}{} })
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	select {
	case <-got:
	case <-time.After(wait):
		t.Fatal("no connection accepted after the accept errors")
	}
}

// failingListener fails its first Accepts as a process out of file
// descriptors does.
type failingListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (f *failingListener) Accept() (net.Conn, error) {
	f.mu.Lock()
	if f.fails > 0 {
		f.fails--
		f.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	f.mu.Unlock()
	return f.Listener.Accept()
}

// TestNodeNameCannotInjectLogLines pins issue 22: a node name with a
// newline injected log lines on rank 0.
func TestNodeNameCannotInjectLogLines(t *testing.T) {
	cfg := config(report(0, same(0)), 2, "127.0.0.1:0")
	logs := logged(&cfg)
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	r := report(1, same(1))
	r.Node = "gpu02\nsglaunch: error: group failed: rank 3 on node gpu09\x1b[2J"
	w := NewWorker(config(r, 2, l.ListenAddr().String()))
	defer w.Close()
	go w.Rendezvous(t.Context())
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Fail(End{Why: "its server exited\nsglaunch: forged line", LostPeer: "gloo: closed\nsglaunch: error: forged too\x1b[2J"})
	<-l.Failed()
	out := logs.String()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "sglaunch:") {
			t.Errorf("an injected log line: %q", line)
		}
	}
	if strings.ContainsRune(l.Failure().Error(), '\n') || strings.ContainsRune(l.Failure().Error(), 0x1b) {
		t.Errorf("the failure holds control characters: %q", l.Failure())
	}
}

// TestLocalObservationsOnOwnerOnlySocket pins issue 22's seventh
// defect: any local user read the workers' server environments through
// the observe request on the TCP port. It is answered on a unix socket
// in an owner-only directory, never on the TCP listener.
func TestLocalObservationsOnOwnerOnlySocket(t *testing.T) {
	l, _, _ := startGroup(t, 2, same)
	for path, want := range map[string]os.FileMode{filepath.Dir(l.cfg.Socket): 0o700, l.cfg.Socket: 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
	}
	nc := dial(t, l)
	r := bufio.NewReader(nc)
	nc.SetDeadline(time.Now().Add(wait))
	readLine(t, r)
	fmt.Fprintf(nc, "- %s\n", mustJSON(t, message{Type: msgObserveAll}))
	line, _ := readLine(t, r)
	if strings.Contains(line, msgObserved) {
		t.Errorf("the TCP listener answered an observation request: %q", line)
	}
}

// TestRequestedStopDrainsNoFailure: a worker's stop request reaches
// rank 0 and every worker (the group stops as one); a worker's end and
// rank 0's connections closing during the stop are no failure; rank 0's
// StopDone tells every worker the group drained.
func TestRequestedStopDrainsNoFailure(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	ws[1].RequestStop("SIGTERM to rank 2")
	for i, m := range []Member{l, ws[0], ws[1]} {
		select {
		case <-m.StopRequested():
		case <-time.After(wait):
			t.Fatalf("rank %d never heard of the stop", i)
		}
	}
	ws[0].StopDone("its server stopped")
	ws[0].Close()
	time.Sleep(300 * time.Millisecond)
	l.StopDone("drained")
	select {
	case <-ws[1].Drained():
	case <-time.After(wait):
		t.Fatal("rank 2 never heard the group drained")
	}
	l.Close()
	time.Sleep(300 * time.Millisecond)
	for i, m := range []Member{l, ws[0], ws[1]} {
		if err := m.Failure(); err != nil {
			t.Errorf("rank %d: a requested stop is a failure: %v", i, err)
		}
	}
}

func mustJSON(t *testing.T, m message) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// editConn rewrites what is written through it, as a man in the middle
// relaying a connection would, and counts its edits.
type editConn struct {
	net.Conn
	from, to []byte
	edits    int
}

func (c *editConn) Write(p []byte) (int, error) {
	if n := bs.Count(p, c.from); n > 0 {
		c.edits += n
		if _, err := c.Conn.Write(bs.ReplaceAll(p, c.from, c.to)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// TestEditedReportInTransitIsRefused pins issue 22's eighth defect from
// the other side: rank 1 runs NCCL_PROTO=Simple under a plan with LL,
// and a man in the middle rewrites its report to say LL (the same
// length of JSON, padded with blanks) so that the group preflight would
// pass. The MAC covers the message's bytes: the edited hello does not
// authenticate, rank 1 takes no place, and rank 0 fails nobody.
func TestEditedReportInTransitIsRefused(t *testing.T) {
	l := listenTwo(t)
	nc := dial(t, l)
	drifted := map[string]string{"NCCL_PROTO": "Simple"}
	edit := &editConn{Conn: nc, from: []byte(`"NCCL_PROTO":"Simple"`), to: []byte(`"NCCL_PROTO":"LL"    `)}
	w := NewWorker(config(report(1, drifted), 2, l.ListenAddr().String()))
	c, err := w.hello(newConn(edit))
	if err != nil {
		t.Fatal(err)
	}
	if edit.edits == 0 {
		t.Fatal("the report crossed the wire without the text the man in the middle edits: the test proves nothing")
	}
	_, body, err := c.recvRaw(time.Now().Add(wait), maxHello)
	m, derr := decode(body)
	if err != nil || derr != nil || m.Type != msgRefuse || !strings.Contains(m.Reason, "did not authenticate") {
		t.Errorf("the edited hello: got %+v (%v, %v), want a refusal that says it did not authenticate", m, err, derr)
	}
	if n := len(l.peers()); n != 0 || l.Failure() != nil {
		t.Errorf("rank 0 took the edited report: %d peers, failure %v", n, l.Failure())
	}
}
