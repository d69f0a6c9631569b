package group

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
)

// wait bounds every wait of these tests: generous, for a loaded machine.
const wait = 20 * time.Second

func report(rank int, env map[string]string) Report {
	return Report{Rank: rank, Node: "node" + string(rune('0'+rank)), Group: "test:1",
		Plan: plan.View{Python: "/usr/bin/python3", Module: "sglang.launch_server",
			Argv: []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--tp-size", "16", "--node-rank", string(rune('0' + rank))}, Env: env},
		SGLang: "0.5.10"}
}

// testSecret is the group secret of these tests' ranks.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

func config(self Report, nodes int, addr string) Config {
	return Config{Self: self, Nodes: nodes, Addr: addr, Bind: "127.0.0.1", DistInitAddr: "127.0.0.1:20000",
		Heartbeat: heartbeat, Missed: testMissed, RendezvousTimeout: wait, Secret: testSecret}
}

// heartbeat is the heartbeat of the ranks config makes: testHeartbeat,
// or longer for a test (slowHeartbeat).
var heartbeat = testHeartbeat

// slowHeartbeat gives the ranks a test starts a 1 s heartbeat, so a
// causeGrace of 500 ms: the tests of which end the group names race a
// report against it, and a loaded machine (-race, two cores) must not
// lose that race.
func slowHeartbeat(t *testing.T) {
	heartbeat = time.Second
	t.Cleanup(func() { heartbeat = testHeartbeat })
}

// testMissed heartbeats of testHeartbeat make a peer lost (2 s):
// generous, so that a loaded machine (-race, two cores) never loses a
// live rank to a late tick (800 ms once did, in a full -race run beside
// other work); the tests of a silent peer bound their wait by lostAfter.
const (
	testHeartbeat = 200 * time.Millisecond
	testMissed    = 10
)

// startGroup starts rank 0 and nodes-1 workers; env gives rank r's env.
func startGroup(t *testing.T, nodes int, env func(rank int) map[string]string) (*Leader, []*Worker, []error) {
	t.Helper()
	cfg := config(report(0, env(0)), nodes, "127.0.0.1:0")
	cfg.Socket = filepath.Join(t.TempDir(), "run", "control.sock")
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	addr := l.ListenAddr().String()
	l.cfg.Addr = addr
	ws := make([]*Worker, nodes-1)
	errs := make([]error, nodes)
	done := make(chan struct{}, nodes)
	for i := range ws {
		ws[i] = NewWorker(config(report(i+1, env(i+1)), nodes, addr))
		t.Cleanup(ws[i].Close)
		go func() {
			got, err := ws[i].Rendezvous(t.Context())
			if err == nil && got != "127.0.0.1:20000" {
				err = errors.New("worker got dist-init address " + got)
			}
			errs[i+1] = err
			done <- struct{}{}
		}()
	}
	_, errs[0] = l.Rendezvous(t.Context())
	for range ws {
		select {
		case <-done:
		case <-time.After(wait):
			t.Fatal("a worker's rendezvous did not end")
		}
	}
	return l, ws, errs
}

// listenTwo starts rank 0 of a 2-node group, closed when the test ends.
func listenTwo(t *testing.T) *Leader {
	t.Helper()
	l, err := Listen(config(report(0, same(0)), 2, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// dial connects to rank 0's control channel as a raw client.
func dial(t *testing.T, l *Leader) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", l.ListenAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// silentRank joins as rank 1 and then says nothing more: a host cut
// off without a FIN, or an sglaunch stopped dead.
func silentRank(t *testing.T, l *Leader) net.Conn {
	t.Helper()
	nc := dial(t, l)
	w := NewWorker(config(report(1, same(1)), 2, l.ListenAddr().String()))
	if _, err := w.hello(newConn(nc)); err != nil {
		t.Fatal(err)
	}
	return nc
}

func same(int) map[string]string { return map[string]string{"NCCL_PROTO": "LL"} }

func TestGroupReadyOnlyWhenEveryRankIs(t *testing.T) {
	l, ws, errs := startGroup(t, 3, same)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	l.LocalReady()
	ws[0].LocalReady()
	select {
	case <-l.GroupReady():
		t.Fatal("ready with rank 2 not up")
	case <-time.After(300 * time.Millisecond):
	}
	ws[1].LocalReady()
	for i, ch := range []<-chan struct{}{l.GroupReady(), ws[0].GroupReady(), ws[1].GroupReady()} {
		select {
		case <-ch:
		case <-time.After(wait):
			t.Fatalf("rank %d never heard the group is ready", i)
		}
	}
}

// TestDriftedVariableRefusedNamingRank: one rank's NCCL variable differs;
// every rank is refused before the load, and the table names the rank.
func TestDriftedVariableRefusedNamingRank(t *testing.T) {
	_, _, errs := startGroup(t, 3, func(rank int) map[string]string {
		if rank == 2 {
			return map[string]string{"NCCL_PROTO": "Simple"}
		}
		return same(rank)
	})
	var me *MismatchError
	if !errors.As(errs[0], &me) {
		t.Fatalf("rank 0: got %v, want a MismatchError", errs[0])
	}
	if len(me.Ranks) != 1 || me.Ranks[0].Rank != 2 || len(me.Ranks[0].Rows) != 1 || me.Ranks[0].Rows[0].Setting != "NCCL_PROTO" {
		t.Errorf("rows: %+v", me.Ranks)
	}
	for r := 1; r <= 2; r++ {
		if !errors.Is(errs[r], ErrRefused) || !strings.Contains(errs[r].Error(), "NCCL_PROTO") {
			t.Errorf("rank %d: got %v, want refused with the table", r, errs[r])
		}
	}
	if !strings.Contains(me.Error(), "rank 2 on node2") {
		t.Errorf("the error does not name the rank: %v", me)
	}
}

func TestOtherGroupRefused(t *testing.T) {
	l := listenTwo(t)
	r := report(1, same(1))
	r.Group = "test:2"
	w := NewWorker(config(r, 2, l.ListenAddr().String()))
	defer w.Close()
	_, err := w.Rendezvous(t.Context())
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "belongs to group test:2") || strings.Contains(err.Error(), "test:1") {
		t.Fatalf("got %v", err)
	}
}

func failedWithin(t *testing.T, m Member, want string) error {
	t.Helper()
	select {
	case <-m.Failed():
	case <-time.After(wait):
		t.Fatalf("rank %d: no failure", m.Rank())
	}
	err := m.Failure()
	if !errors.Is(err, ErrGroupFailed) || !strings.Contains(err.Error(), want) {
		t.Errorf("rank %d: got %v, want a group failure with %q", m.Rank(), err, want)
	}
	return err
}

// TestWorkerFailureStopsEveryRank: the first failure reaches every rank
// by name.
func TestWorkerFailureStopsEveryRank(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	ws[0].Fail(End{Why: "exited 137"})
	failedWithin(t, l, "rank 1 on node node1: exited 137")
	failedWithin(t, ws[1], "rank 1 on node node1: exited 137")
}

func TestRankZeroGoneStopsWorkers(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	l.Close() // its connections close without a word, as when rank 0's sglaunch is killed
	for _, w := range ws {
		failedWithin(t, w, "lost rank 0")
	}
}

func TestWorkerConnectionLostFailsGroup(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	ws[1].c.close() // as when rank 2's sglaunch is killed
	failedWithin(t, l, "rank 2 on node node2: lost")
	failedWithin(t, ws[0], "rank 2 on node node2: lost")
}

// TestSilentWorkerLostWithinHeartbeatBound: a rank that stops talking
// (a partition: no FIN, no RST) is lost after interval × threshold.
func TestSilentWorkerLostWithinHeartbeatBound(t *testing.T) {
	l := listenTwo(t)
	silentRank(t, l)
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	failedWithin(t, l, "no heartbeat")
	if took, bound := time.Since(start), l.cfg.lostAfter()+l.cfg.Heartbeat+2*time.Second; took > bound {
		t.Errorf("lost after %s, want within %s", took, bound)
	}
}

func TestRendezvousTimeoutNamesMissingRank(t *testing.T) {
	cfg := config(report(0, same(0)), 3, "127.0.0.1:0")
	cfg.RendezvousTimeout = 300 * time.Millisecond
	l, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = l.Rendezvous(t.Context())
	if !errors.Is(err, ErrRendezvous) || !strings.Contains(err.Error(), "ranks 1, 2 did not report") {
		t.Fatalf("got %v", err)
	}
}

func TestObserveAll(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	ws[0].cfg.Observe = func(context.Context) ([]byte, error) { return []byte(`{"rank":1}`), nil }
	ws[1].cfg.Observe = func(context.Context) ([]byte, error) { return nil, errors.New("no server") }
	items, err := ObserveAll(t.Context(), l.cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 {
		t.Fatalf("got %d items: %+v", len(items), items)
	}
	var v struct{ Rank int }
	if err := json.Unmarshal(items[0].Data, &v); err != nil || v.Rank != 1 || items[0].Rank != 1 {
		t.Errorf("item 0: %+v (%v)", items[0], err)
	}
	if items[1].Rank != 2 || items[1].Error != "no server" {
		t.Errorf("item 1: %+v", items[1])
	}
}

func TestOversizedMessageRefused(t *testing.T) {
	l := listenTwo(t)
	nc := dial(t, l)
	go nc.Write([]byte(`- {"type":"hello","x":"` + strings.Repeat("a", 2*maxMessage)))
	nc.SetReadDeadline(time.Now().Add(wait))
	r := bufio.NewReader(nc)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, msgChallenge) {
		t.Fatalf("no challenge first: %q, %v", line, err)
	}
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("the leader answered an oversized hello: %q", line)
	}
}

// TestRestartedRankJoinsOnceItsOldSelfIsGone: a rank restarted while
// rank 0 still holds its earlier connection is told to try again (not
// refused for good, which would exit 2 and stop a systemd restart); it
// joins once rank 0 has dropped the silent old one.
func TestRestartedRankJoinsOnceItsOldSelfIsGone(t *testing.T) {
	l := listenTwo(t)
	addr := l.ListenAddr().String()
	nc := silentRank(t, l)
	testkit.WaitFor(t, wait, "rank 0 to hold the old rank 1", func() bool { return len(l.peers()) == 1 })
	w := NewWorker(config(report(1, same(1)), 2, addr))
	defer w.Close()
	done := make(chan error, 1)
	go func() { _, err := w.Rendezvous(t.Context()); done <- err }()
	testkit.WaitFor(t, wait, "the restarted rank 1 in place of the old", func() bool {
		p := l.peers()
		return len(p) == 1 && p[0].c.remote() != nc.LocalAddr().String()
	})
	if _, err := l.Rendezvous(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the restarted rank: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("the restarted rank never joined")
	}
}

// TestGroupNamesTheCauseNotItsEcho: rank 0's server dies a moment after
// a worker's (gloo takes an idle rank 0 down with its peer); the group
// names the worker, whose report arrives just after rank 0's own end.
func TestGroupNamesTheCauseNotItsEcho(t *testing.T) {
	slowHeartbeat(t)
	l, ws, _ := startGroup(t, 3, same)
	go func() {
		time.Sleep(20 * time.Millisecond)
		ws[0].Fail(End{Why: "its server exited, exit status 137 (SIGKILL)"})
	}()
	l.Fail(End{Why: "its server exited, exit status 137 (SIGKILL)"})
	failedWithin(t, l, "rank 1 on node node1")
	failedWithin(t, ws[1], "rank 1 on node node1")
}

// TestGroupHoldsAnEchoForItsCause: rank 2's server ends first, having
// lost its gloo peer; rank 1's sglaunch, whose server was the one that
// died, reports a moment later. Every rank names rank 1, rank 2 too.
func TestGroupHoldsAnEchoForItsCause(t *testing.T) {
	slowHeartbeat(t)
	l, ws, _ := startGroup(t, 3, same)
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		ws[1].Fail(End{Why: "its server exited, exit status 137 (SIGKILL)", LostPeer: "gloo: Connection closed by peer [10.0.0.2]:56408"})
	}()
	testkit.WaitFor(t, wait, "rank 0 to hold rank 2's echo", l.echoHeld.Load)
	ws[0].Fail(End{Why: "its server exited, exit status 137 (SIGKILL)"})
	for _, m := range []Member{l, ws[0], ws[1]} {
		err := failedWithin(t, m, "rank 1 on node node1: its server exited")
		if strings.Contains(err.Error(), "rank 2") {
			t.Errorf("rank %d blames rank 2, whose server only followed: %v", m.Rank(), err)
		}
	}
	<-echoed
}

// TestEchoNamedWhenNoCauseComes: a rank that lost a peer with no other
// rank's word is named, after causeGrace, with what its server said.
func TestEchoNamedWhenNoCauseComes(t *testing.T) {
	l, ws, _ := startGroup(t, 3, same)
	start := time.Now()
	go ws[1].Fail(End{Why: "its server exited, exit status 1", LostPeer: "NCCL: remote process exited or there was a network error"})
	for _, m := range []Member{l, ws[0], ws[1]} {
		failedWithin(t, m, "rank 2 on node node2: its server exited, exit status 1, after it lost a peer (NCCL: remote process exited")
	}
	if took := time.Since(start); took < l.cfg.causeGrace() {
		t.Errorf("the echo was named after %s, before causeGrace (%s) had passed", took, l.cfg.causeGrace())
	}
}

// TestRankZeroEchoWaitsForTheCause: rank 0's own server followed a lost
// peer, and a later echo of a worker does not take the cause's place;
// the worker that failed is named.
func TestRankZeroEchoWaitsForTheCause(t *testing.T) {
	slowHeartbeat(t)
	l, ws, _ := startGroup(t, 3, same)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Fail(End{Why: "its server exited, exit status 137 (SIGKILL)", LostPeer: "gloo: Connection closed by peer [10.0.0.3]:41000"})
	}()
	testkit.WaitFor(t, wait, "rank 0 to hold its own echo", l.echoHeld.Load)
	go ws[0].Fail(End{Why: "its server exited, exit status 137 (SIGKILL)", LostPeer: "gloo: Connection closed by peer [10.0.0.3]:41002"})
	ws[1].Fail(End{Why: "its server exited, exit status 1"})
	<-done
	failedWithin(t, l, "rank 2 on node node2: its server exited, exit status 1")
	failedWithin(t, ws[0], "rank 2 on node node2")
}
