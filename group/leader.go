package group

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// helloTimeout bounds a new connection's handshake: rank 0's challenge
// and the worker's hello.
const helloTimeout = 10 * time.Second

// Leader is rank 0's end: it listens for the workers, holds the
// distributed preflight, and tells every rank when the group is ready
// or stops.
type Leader struct {
	cfg   Config
	ln    net.Listener
	local net.Listener // the unix socket of local observations, or nil
	fail  *failure
	stop  *stopState

	mu         sync.Mutex
	workers    map[int]*peer
	started    bool          // go was sent: a lost rank is now a failure
	changed    chan struct{} // closed and replaced on every join or leave
	localReady bool
	ready      chan struct{}
	readyOnce  sync.Once
	closed     chan struct{}
	closeOnce  sync.Once
	observeMu  sync.Mutex
	refusals   refusalLog
	echoHeld   atomic.Bool // an echo waits for its cause (holdEcho)
}

// peer is one worker as rank 0 sees it.
type peer struct {
	rank     int
	node     string // cleaned for the log
	c        *conn
	report   Report
	ready    bool
	lastSeen atomic.Int64 // unix nanos of its last message
	// told: it said its server ended (msgFail); its connection's end
	// after that is no news.
	told    atomic.Bool
	replies chan message // observations
}

// Listen starts rank 0's control channel: on the cluster interface
// (see bindAddr), and on cfg.Socket for local observations.
func Listen(cfg Config) (*Leader, error) {
	addr, err := bindAddr(cfg)
	if err != nil {
		return nil, fmt.Errorf("control channel: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("control channel: %w", err)
	}
	l := &Leader{cfg: cfg, ln: ln, fail: newFailure(), stop: newStopState(), workers: map[int]*peer{},
		changed: make(chan struct{}), ready: make(chan struct{}), closed: make(chan struct{})}
	if cfg.Socket != "" {
		if l.local, err = listenLocal(cfg.Socket); err != nil {
			ln.Close()
			return nil, err
		}
		go acceptLoop(l.local, l.closed, 4, func(string) {}, func(c net.Conn) { l.observeAll(newConn(c)) })
	}
	go acceptLoop(ln, l.closed, cfg.maxConns(), func(peer string) { l.refused(peer, "too many connections") },
		func(c net.Conn) { l.handle(newConn(c)) })
	go l.heartbeats()
	return l, nil
}

// ListenAddr is where the control channel listens.
func (l *Leader) ListenAddr() net.Addr { return l.ln.Addr() }

func (l *Leader) Rank() int                      { return 0 }
func (l *Leader) GroupReady() <-chan struct{}    { return l.ready }
func (l *Leader) Failed() <-chan struct{}        { return l.fail.ch }
func (l *Leader) Failure() error                 { return l.fail.get() }
func (l *Leader) StopRequested() <-chan struct{} { return l.stop.requested }
func (l *Leader) StopReason() string             { return l.stop.reason() }
func (l *Leader) Drained() <-chan struct{}       { return l.stop.drained }

// handle holds a connection's handshake: rank 0's challenge, then the
// worker's hello, which must authenticate. Anything else is refused
// with nothing of rank 0's in the refusal, and logged with the peer's
// address only: a stranger never takes a rank's place, never fails the
// group, never names a rank.
func (l *Leader) handle(c *conn) {
	nonce := newNonce()
	if err := c.send(message{Type: msgChallenge, Nonce: nonce}); err != nil {
		c.close()
		return
	}
	mac, body, err := c.recvRaw(time.Now().Add(helloTimeout), maxHello)
	if err != nil {
		l.refused(c.c.RemoteAddr().String(), "no hello: "+err.Error())
		c.close()
		return
	}
	m, err := decode(body)
	if err == nil && (m.Type != msgHello || m.Nonce == "" || len(m.Nonce) > 64) {
		err = errors.New("not a hello")
	}
	if err == nil {
		c.auth = newSession(l.cfg.Secret, nonce, m.Nonce, true)
		err = c.auth.verify(mac, body)
	}
	if err != nil {
		l.refused(c.c.RemoteAddr().String(), err.Error())
		c.auth = nil
		c.send(message{Type: msgRefuse, Reason: "rank 0 refused the connection: its hello did not authenticate (another group secret?)"})
		c.close()
		return
	}
	l.join(c, m)
}

// join admits an authenticated worker, or refuses it with the reason.
func (l *Leader) join(c *conn, m message) {
	refuse := func(why string) {
		c.send(message{Type: msgRefuse, Reason: why})
		c.close()
	}
	retry := func(why string) {
		c.send(message{Type: msgRefuse, Reason: why, Retry: true})
		c.close()
	}
	r := m.Report
	if r == nil {
		refuse("hello without a report")
		return
	}
	node := clean(r.Node, maxName)
	switch {
	case r.Group != l.cfg.Self.Group:
		refuse(fmt.Sprintf("rank %d on %s belongs to group %s, not rank 0's", r.Rank, node, clean(r.Group, maxName)))
		return
	case r.Rank < 1 || r.Rank >= l.cfg.Nodes:
		refuse(fmt.Sprintf("rank %d is outside 1..%d of a %d-node group", r.Rank, l.cfg.Nodes-1, l.cfg.Nodes))
		return
	}
	rep := *r
	rep.Node = node
	l.mu.Lock()
	if old, ok := l.workers[r.Rank]; ok {
		l.mu.Unlock()
		retry(fmt.Sprintf("rank %d has joined already, from %s (node %s)", r.Rank, old.c.remote(), old.node))
		return
	}
	if l.started {
		l.mu.Unlock()
		// A rank restarted while this group still ends (its loss is
		// this group's failure): it joins the next rank 0.
		retry(fmt.Sprintf("the group is past its preflight without rank %d", r.Rank))
		return
	}
	p := &peer{rank: r.Rank, node: node, c: c, report: rep, replies: make(chan message, 1)}
	p.lastSeen.Store(time.Now().UnixNano())
	l.workers[r.Rank] = p
	l.notifyLocked()
	l.mu.Unlock()
	l.cfg.log().Info(fmt.Sprintf("rank %d on %s reported (%s)", r.Rank, node, c.remote()))
	l.read(p)
}

func (l *Leader) notifyLocked() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// read handles a worker's messages until its connection ends.
func (l *Leader) read(p *peer) {
	for {
		m, err := p.c.recv(time.Now().Add(l.cfg.msgTimeout()), maxMessage)
		if err != nil {
			why := "its control connection closed (its sglaunch ended or the host is gone)"
			if errors.Is(err, errBadMAC) || errors.Is(err, errUnsigned) || errors.Is(err, errTooLong) {
				// Someone else's bytes on the connection: it can no
				// longer be told from the worker's.
				why = "its control connection broke: " + err.Error()
			}
			l.lost(p, why)
			return
		}
		p.lastSeen.Store(time.Now().UnixNano())
		switch m.Type {
		case msgReady:
			l.mu.Lock()
			p.ready = true
			l.mu.Unlock()
			l.cfg.log().Info(fmt.Sprintf("rank %d on %s: its server is up", p.rank, p.node))
			l.checkReady()
		case msgFail:
			end := End{Why: clean(m.Reason, maxReason), LostPeer: clean(m.LostPeer, maxReason)}
			if l.stop.isRequested() {
				// During a requested stop a worker's end is no failure.
				l.cfg.log().Info(fmt.Sprintf("rank %d on %s during the group's stop: %s", p.rank, p.node, end.describe()))
				continue
			}
			p.told.Store(true)
			err := groupFailed("rank %d on node %s: %s", p.rank, p.node, end.describe())
			if end.LostPeer != "" {
				l.holdEcho(err)
				continue
			}
			l.failGroup(err)
		case msgStopRequest:
			l.RequestStop(fmt.Sprintf("rank %d on %s was asked to stop (%s)", p.rank, p.node, clean(m.Reason, maxReason)))
		case msgStopped:
			l.cfg.log().Info(fmt.Sprintf("rank %d on %s: %s", p.rank, p.node, clean(m.Reason, maxReason)))
		case msgObservation:
			select {
			case p.replies <- m:
			default:
			}
		}
	}
}

// lost drops a worker: before the load it may join again; after, the
// group has failed.
func (l *Leader) lost(p *peer, why string) {
	select {
	case <-l.closed: // rank 0 is closing every connection itself
		return
	default:
	}
	l.mu.Lock()
	if l.workers[p.rank] != p {
		l.mu.Unlock()
		return
	}
	loaded, stopping := l.started, l.stop.isRequested()
	if !loaded || stopping {
		delete(l.workers, p.rank)
		l.notifyLocked()
	}
	l.mu.Unlock()
	// The failure is named before the connection is closed, whose read
	// error would otherwise be taken for the cause.
	switch {
	case loaded && !stopping && p.told.Load():
		// It said how its server ended: that, or its cause, names the
		// failure.
	case loaded && !stopping:
		l.failGroup(groupFailed("rank %d on node %s: lost, %s", p.rank, p.node, why))
	case loaded:
		l.cfg.log().Info(fmt.Sprintf("rank %d on %s left during the group's stop: %s", p.rank, p.node, why))
	default:
		l.cfg.log().Warn(fmt.Sprintf("rank %d on %s left before the load: %s", p.rank, p.node, why))
	}
	p.c.close()
}

// heartbeats sends every worker a heartbeat each interval and drops a
// worker silent for longer than Heartbeat × Missed.
func (l *Leader) heartbeats() {
	t := time.NewTicker(l.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-l.closed:
			return
		case <-t.C:
		}
		for _, p := range l.peers() {
			silent := time.Since(time.Unix(0, p.lastSeen.Load()))
			if silent > l.cfg.lostAfter() {
				l.lost(p, fmt.Sprintf("no heartbeat for %s (a network partition, or the host is gone)", silent.Round(time.Millisecond)))
				continue
			}
			go p.c.send(message{Type: msgHeartbeat})
		}
	}
}

func (l *Leader) peers() []*peer {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*peer, 0, len(l.workers))
	for _, p := range l.workers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// Rendezvous waits for every worker's report, compares each with rank
// 0's, and tells them all to load, or refuses them all.
func (l *Leader) Rendezvous(ctx context.Context) (string, error) {
	deadline := time.NewTimer(l.cfg.RendezvousTimeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		n, changed := len(l.workers), l.changed
		l.mu.Unlock()
		if n == l.cfg.Nodes-1 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case <-l.fail.ch:
			return "", l.fail.err
		case <-deadline.C:
			return "", fmt.Errorf("%w: %s did not report to rank 0 (control channel %s) within %s; are they started, and can they reach this host on that port?",
				ErrRendezvous, l.missing(), l.cfg.Addr, l.cfg.RendezvousTimeout)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var ranks []RankDiff
	for r := 1; r < l.cfg.Nodes; r++ {
		w := l.workers[r].report
		if rows := Compare(l.cfg.Self, w); len(rows) > 0 {
			ranks = append(ranks, RankDiff{Rank: w.Rank, Node: w.Node, Rows: rows})
		}
	}
	if len(ranks) > 0 {
		e := &MismatchError{Ranks: ranks}
		for _, p := range l.workers {
			p.c.send(message{Type: msgRefuse, Reason: "the group does not run one plan", Table: e.Error()})
		}
		return "", e
	}
	l.started = true
	for _, p := range l.workers {
		p.c.send(message{Type: msgGo, DistInitAddr: l.cfg.DistInitAddr})
	}
	return l.cfg.DistInitAddr, nil
}

// missing names the ranks that have not reported.
func (l *Leader) missing() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var m []string
	for r := 1; r < l.cfg.Nodes; r++ {
		if _, ok := l.workers[r]; !ok {
			m = append(m, strconv.Itoa(r))
		}
	}
	if len(m) == 1 {
		return "rank " + m[0]
	}
	return "ranks " + strings.Join(m, ", ")
}

// LocalReady marks rank 0's own server ready (its /health passed).
func (l *Leader) LocalReady() {
	l.mu.Lock()
	l.localReady = true
	l.mu.Unlock()
	l.checkReady()
}

// checkReady declares the group ready once rank 0 and every worker are.
func (l *Leader) checkReady() {
	l.mu.Lock()
	ok := l.localReady && l.started && len(l.workers) == l.cfg.Nodes-1
	for _, p := range l.workers {
		ok = ok && p.ready
	}
	l.mu.Unlock()
	if !ok || l.fail.get() != nil {
		return
	}
	l.readyOnce.Do(func() {
		close(l.ready)
		for _, p := range l.peers() {
			p.c.send(message{Type: msgGroupReady})
		}
	})
}

// Fail says rank 0's own server ended: the group stops. Rank 0 first
// waits causeGrace for a cause elsewhere; its own echo (end.LostPeer) is
// held like a worker's.
func (l *Leader) Fail(end End) {
	err := groupFailed("rank 0 on node %s: %s", l.cfg.Self.Node, end.describe())
	if end.LostPeer != "" {
		l.holdEcho(err)
		<-l.fail.ch
		return
	}
	select {
	case <-l.fail.ch:
	case <-time.After(l.cfg.causeGrace()):
	}
	l.failGroup(err)
}

// holdEcho holds a rank's end that followed a lost peer: its server
// most likely ended because another rank's did, and that rank's report
// may come a moment later (its sglaunch saw its own server end, while
// gloo took this one down with it). The first echo becomes the group's
// failure only when no other has come within causeGrace.
func (l *Leader) holdEcho(err error) {
	if l.fail.get() != nil || !l.echoHeld.CompareAndSwap(false, true) {
		return
	}
	go func() {
		t := time.NewTimer(l.cfg.causeGrace())
		defer t.Stop()
		select {
		case <-l.fail.ch:
		case <-t.C:
			l.failGroup(err)
		}
	}()
}

// failGroup records the group's first failure and tells every worker
// to stop.
func (l *Leader) failGroup(err error) {
	if !l.fail.set(err) {
		return
	}
	l.cfg.log().Error(err.Error())
	// Sent before anyone closes a connection: each worker is told the
	// first failure, not only that rank 0 went away.
	l.sendAll(message{Type: msgStop, Reason: strings.TrimPrefix(err.Error(), ErrGroupFailed.Error()+": ")})
}

// Close stops listening and closes every worker's connection.
func (l *Leader) Close() {
	l.closeOnce.Do(func() {
		close(l.closed)
		l.ln.Close()
		if l.local != nil {
			l.local.Close()
			os.Remove(l.cfg.Socket)
			os.Remove(filepath.Dir(l.cfg.Socket)) // only when empty
		}
		for _, p := range l.peers() {
			p.c.close()
		}
	})
}

// RequestStop starts the group's requested stop (a signal to rank 0, or
// a worker's stop request): every worker keeps its server up while
// rank 0 drains, until StopDone.
func (l *Leader) RequestStop(why string) {
	if l.fail.get() != nil || !l.stop.request(why) {
		return
	}
	l.cfg.log().Info("the group stops on request: " + why + "; rank 0 drains its requests, every worker keeps its server up until then")
	l.sendAll(message{Type: msgDrain, Reason: why})
}

// StopDone says rank 0's server ended during the requested stop: every
// worker may stop its own.
func (l *Leader) StopDone(why string) {
	if !l.stop.isRequested() || l.stop.isDrained() {
		return
	}
	l.stop.drain()
	l.sendAll(message{Type: msgStop, Drained: true, Reason: "the group stopped on request; rank 0 " + why})
}

// sendAll sends m to every worker at once, and returns once each send
// is done (or timed out).
func (l *Leader) sendAll(m message) {
	var wg sync.WaitGroup
	for _, p := range l.peers() {
		wg.Add(1)
		go func() { defer wg.Done(); p.c.send(m) }()
	}
	wg.Wait()
}
