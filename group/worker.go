package group

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialEvery spaces a worker's attempts to reach rank 0: its address may
// not resolve yet (a LeaderWorkerSet's headless service), or rank 0 may
// not listen yet.
const dialEvery = 500 * time.Millisecond

// Worker is a rank ≥ 1's end: it reports to rank 0, loads when told,
// and stops when the group does.
type Worker struct {
	cfg       Config
	fail      *failure
	stop      *stopState
	loading   atomic.Bool // rank 0 said go: a lost rank 0 is now a failure
	mu        sync.Mutex
	c         *conn // the connection to rank 0 in use; nil between tries
	lastSeen  atomic.Int64
	gotGo     chan message // go or refuse
	ready     chan struct{}
	readyOnce sync.Once
	hbOnce    sync.Once
	closed    chan struct{}
	closeOnce sync.Once
	closing   atomic.Bool
}

// NewWorker prepares a worker; Rendezvous connects it.
func NewWorker(cfg Config) *Worker {
	return &Worker{cfg: cfg, fail: newFailure(), stop: newStopState(), gotGo: make(chan message, 1), ready: make(chan struct{}), closed: make(chan struct{})}
}

func (w *Worker) Rank() int                   { return w.cfg.Self.Rank }
func (w *Worker) GroupReady() <-chan struct{} { return w.ready }
func (w *Worker) Failed() <-chan struct{}     { return w.fail.ch }
func (w *Worker) Failure() error              { return w.fail.get() }
func (w *Worker) StopRequested() <-chan struct{} {
	return w.stop.requested
}
func (w *Worker) StopReason() string       { return w.stop.reason() }
func (w *Worker) Drained() <-chan struct{} { return w.stop.drained }

func (w *Worker) current() *conn {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.c
}

func (w *Worker) setConn(c *conn) {
	w.mu.Lock()
	w.c = c
	w.mu.Unlock()
}

// Rendezvous connects to rank 0 (retrying until RendezvousTimeout),
// reports, and waits until rank 0 says to load or refuses. A refusal
// that may pass (this rank still present from before, the group still
// ending) is tried again until the timeout.
func (w *Worker) Rendezvous(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.RendezvousTimeout)
	defer cancel()
	said := false
	for {
		c, err := w.dial(ctx)
		if err != nil {
			return "", err
		}
		w.lastSeen.Store(time.Now().UnixNano())
		w.setConn(c)
		go w.read(c)
		w.hbOnce.Do(func() { go w.heartbeats() })
		var m message
		select {
		case m = <-w.gotGo:
		case <-w.fail.ch:
			return "", w.fail.err
		case <-ctx.Done():
			return "", w.rendezvousEnd(ctx, "rank 0 did not start the group")
		}
		switch {
		case m.Type == msgGo:
			w.loading.Store(true)
			return m.DistInitAddr, nil
		case m.Retry:
			w.setConn(nil)
			c.close()
			if !said {
				w.cfg.log().Info(fmt.Sprintf("rank 0 at %s: %s; trying again until the rendezvous timeout", w.cfg.Addr, m.Reason))
				said = true
			}
			select {
			case <-ctx.Done():
				return "", w.rendezvousEnd(ctx, m.Reason)
			case <-time.After(dialEvery):
			}
		case m.Table != "":
			return "", fmt.Errorf("%w: %s", ErrRefused, m.Table)
		default:
			return "", fmt.Errorf("%w: %s", ErrRefused, m.Reason)
		}
	}
}

// rendezvousEnd is the error of a rendezvous whose context ended.
func (w *Worker) rendezvousEnd(ctx context.Context, last string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: rank 0's control channel %s did not start the group within %s (last: %s); is rank 0 started, and is the port open?",
			ErrRendezvous, w.cfg.Addr, w.cfg.RendezvousTimeout, last)
	}
	return context.Cause(ctx)
}

// dial reaches rank 0 and says hello, retrying while its name does not
// resolve, it does not listen yet, or the handshake fails (rank 0 at its
// connection cap, a stranger in its place).
func (w *Worker) dial(ctx context.Context) (*conn, error) {
	var last error
	said := time.Time{}
	for {
		d := net.Dialer{Timeout: 5 * time.Second}
		nc, err := d.DialContext(ctx, "tcp", w.cfg.Addr)
		if err == nil {
			c, herr := w.hello(newConn(nc))
			if herr == nil {
				return c, nil
			}
			nc.Close()
			err = herr
		}
		last = err
		if time.Since(said) > 30*time.Second {
			w.cfg.log().Info(fmt.Sprintf("waiting for rank 0's control channel at %s: %v", w.cfg.Addr, err))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, w.rendezvousEnd(ctx, last.Error())
		case <-time.After(dialEvery):
		}
	}
}

// hello reads rank 0's challenge and sends this rank's report, signed
// under the connection's key (see auth.go).
func (w *Worker) hello(c *conn) (*conn, error) {
	mac, body, err := c.recvRaw(time.Now().Add(helloTimeout), maxHello)
	if err != nil {
		return nil, fmt.Errorf("no challenge from rank 0: %w", err)
	}
	m, err := decode(body)
	if err != nil {
		return nil, err
	}
	if mac != unsigned || m.Type != msgChallenge || m.Nonce == "" || len(m.Nonce) > 64 {
		return nil, fmt.Errorf("rank 0 sent %q, not its challenge", clean(m.Type, maxName))
	}
	nonce := newNonce()
	c.auth = newSession(w.cfg.Secret, m.Nonce, nonce, false)
	if err := c.send(message{Type: msgHello, Nonce: nonce, Report: &w.cfg.Self}); err != nil {
		return nil, err
	}
	return c, nil
}

// read handles rank 0's messages on c until c ends. Before rank 0 said
// go, a broken connection (an unsigned refusal, a message that does not
// authenticate) is a reason to try again; after, it is rank 0 lost.
func (w *Worker) read(c *conn) {
	for {
		m, err := c.recv(time.Now().Add(w.cfg.msgTimeout()), maxHello)
		if err != nil {
			switch {
			case w.closing.Load() || w.current() != c || w.stop.isDrained():
			case !w.loading.Load():
				w.setConn(nil)
				c.close()
				select {
				case w.gotGo <- message{Type: msgRefuse, Retry: true, Reason: "rank 0's control channel: " + err.Error()}:
				default:
				}
			default:
				w.fail.set(groupFailed("lost rank 0 at %s: its control connection %s", w.cfg.Addr, lostHow(err)))
			}
			return
		}
		w.lastSeen.Store(time.Now().UnixNano())
		switch m.Type {
		case msgGo, msgRefuse:
			if m.Retry {
				// rank 0 closes c next: that is no loss of rank 0.
				w.mu.Lock()
				if w.c == c {
					w.c = nil
				}
				w.mu.Unlock()
			}
			select {
			case w.gotGo <- m:
			default:
			}
		case msgGroupReady:
			w.readyOnce.Do(func() { close(w.ready) })
		case msgDrain:
			w.stop.request(clean(m.Reason, maxReason))
		case msgStop:
			if m.Drained {
				w.stop.request(clean(m.Reason, maxReason))
				w.stop.drain()
				continue
			}
			w.fail.set(fmt.Errorf("%w: rank 0 stops the group: %s", ErrGroupFailed, clean(m.Reason, maxReason)))
		case msgObserve:
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), observeTimeout)
				defer cancel()
				c.send(answerObserve(ctx, w.cfg.Observe))
			}()
		}
	}
}

// lostHow says how the connection to rank 0 ended.
func lostHow(err error) string {
	if errors.Is(err, errBadMAC) || errors.Is(err, errUnsigned) || errors.Is(err, errTooLong) {
		return "broke: " + err.Error()
	}
	return "closed (its sglaunch ended or the host is gone)"
}

// heartbeats sends rank 0 a heartbeat each interval and counts rank 0
// lost when it is silent for Heartbeat × Missed.
func (w *Worker) heartbeats() {
	t := time.NewTicker(w.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-w.closed:
			return
		case <-w.fail.ch:
			return
		case <-w.stop.drained:
			return
		case <-t.C:
		}
		c := w.current()
		if c == nil {
			continue // between tries
		}
		if silent := time.Since(time.Unix(0, w.lastSeen.Load())); silent > w.cfg.lostAfter() {
			w.fail.set(groupFailed("lost rank 0 at %s: no heartbeat for %s (a network partition, or the host is gone)", w.cfg.Addr, silent.Round(time.Millisecond)))
			c.close()
			return
		}
		go c.send(message{Type: msgHeartbeat})
	}
}

// LocalReady tells rank 0 this rank's server is up.
func (w *Worker) LocalReady() {
	if c := w.current(); c != nil {
		c.send(message{Type: msgReady, Rank: w.cfg.Self.Rank})
	}
}

// Fail tells rank 0 this rank's server ended, at once: rank 0 names the
// group's failure. Locally the worker waits for the group's word before
// naming itself: causeGrace, as rank 0 does, for a lost rank 0; and for
// an echo (end.LostPeer), until rank 0 has named the cause or the echo
// (echoPatience).
func (w *Worker) Fail(end End) {
	if c := w.current(); c != nil {
		c.send(message{Type: msgFail, Rank: w.cfg.Self.Rank, Reason: end.Why, LostPeer: end.LostPeer})
	}
	wait := w.cfg.causeGrace()
	if end.LostPeer != "" {
		wait = w.cfg.echoPatience()
	}
	select {
	case <-w.fail.ch:
	case <-time.After(wait):
	}
	w.fail.set(groupFailed("rank %d on node %s: %s", w.cfg.Self.Rank, w.cfg.Self.Node, end.describe()))
}

// RequestStop tells rank 0 this rank was asked to stop: rank 0 drains,
// and this rank's server stays up until it has (Drained).
func (w *Worker) RequestStop(why string) {
	w.stop.request(why)
	if c := w.current(); c != nil {
		c.send(message{Type: msgStopRequest, Rank: w.cfg.Self.Rank, Reason: why})
	}
}

// StopDone tells rank 0 this rank's server ended during the requested
// stop, which is no failure.
func (w *Worker) StopDone(why string) {
	if c := w.current(); c != nil && !w.stop.isDrained() {
		c.send(message{Type: msgStopped, Rank: w.cfg.Self.Rank, Reason: why})
	}
}

// Close ends the connection to rank 0.
func (w *Worker) Close() {
	w.closeOnce.Do(func() {
		w.closing.Store(true)
		close(w.closed)
		if c := w.current(); c != nil {
			c.close()
		}
	})
}
