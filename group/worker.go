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
	c         *conn
	lastSeen  atomic.Int64
	gotGo     chan message // go or refuse
	ready     chan struct{}
	readyOnce sync.Once
	closed    chan struct{}
	closeOnce sync.Once
	closing   atomic.Bool
}

// NewWorker prepares a worker; Rendezvous connects it.
func NewWorker(cfg Config) *Worker {
	return &Worker{cfg: cfg, fail: newFailure(), gotGo: make(chan message, 1), ready: make(chan struct{}), closed: make(chan struct{})}
}

func (w *Worker) Rank() int                   { return w.cfg.Self.Rank }
func (w *Worker) GroupReady() <-chan struct{} { return w.ready }
func (w *Worker) Failed() <-chan struct{}     { return w.fail.ch }
func (w *Worker) Failure() error              { return w.fail.get() }

// Rendezvous connects to rank 0 (retrying until RendezvousTimeout),
// reports, and waits until rank 0 says to load or refuses.
func (w *Worker) Rendezvous(ctx context.Context) (string, error) {
	c, err := w.dial(ctx)
	if err != nil {
		return "", err
	}
	w.c = c
	if err := c.send(message{Type: msgHello, Report: &w.cfg.Self}); err != nil {
		return "", fmt.Errorf("rank 0 at %s: %w", w.cfg.Addr, err)
	}
	w.lastSeen.Store(time.Now().UnixNano())
	go w.read()
	go w.heartbeats()
	select {
	case m := <-w.gotGo:
		if m.Type == msgRefuse {
			if m.Table != "" {
				return "", fmt.Errorf("%w: %s", ErrRefused, m.Table)
			}
			return "", fmt.Errorf("%w: %s", ErrRefused, m.Reason)
		}
		return m.DistInitAddr, nil
	case <-w.fail.ch:
		return "", w.fail.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// dial reaches rank 0, retrying while its name does not resolve or it
// does not listen yet.
func (w *Worker) dial(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.RendezvousTimeout)
	defer cancel()
	var last error
	said := time.Time{}
	for {
		d := net.Dialer{Timeout: 5 * time.Second}
		nc, err := d.DialContext(ctx, "tcp", w.cfg.Addr)
		if err == nil {
			return newConn(nc), nil
		}
		last = err
		if time.Since(said) > 30*time.Second {
			w.cfg.log().Info(fmt.Sprintf("waiting for rank 0's control channel at %s: %v", w.cfg.Addr, err))
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, fmt.Errorf("%w: rank 0's control channel %s did not answer within %s (last: %v); is rank 0 started, and is the port open?",
					ErrRendezvous, w.cfg.Addr, w.cfg.RendezvousTimeout, last)
			}
			return nil, context.Cause(ctx)
		case <-time.After(dialEvery):
		}
	}
}

func (w *Worker) read() {
	for {
		m, err := w.c.recv(time.Time{})
		if err != nil {
			if !w.closing.Load() {
				w.fail.set(groupFailed("lost rank 0 at %s: its control connection closed (its sglaunch ended or the host is gone)", w.cfg.Addr))
			}
			return
		}
		w.lastSeen.Store(time.Now().UnixNano())
		switch m.Type {
		case msgGo, msgRefuse:
			select {
			case w.gotGo <- m:
			default:
			}
		case msgGroupReady:
			w.readyOnce.Do(func() { close(w.ready) })
		case msgStop:
			w.fail.set(fmt.Errorf("%w: rank 0 stops the group: %s", ErrGroupFailed, m.Reason))
		case msgObserve:
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), observeTimeout)
				defer cancel()
				w.c.send(answerObserve(ctx, w.cfg.Observe))
			}()
		}
	}
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
		case <-t.C:
		}
		if silent := time.Since(time.Unix(0, w.lastSeen.Load())); silent > w.cfg.lostAfter() {
			w.fail.set(groupFailed("lost rank 0 at %s: no heartbeat for %s (a network partition, or the host is gone)", w.cfg.Addr, silent.Round(time.Millisecond)))
			w.c.close()
			return
		}
		go w.c.send(message{Type: msgHeartbeat})
	}
}

// LocalReady tells rank 0 this rank's server is up.
func (w *Worker) LocalReady() {
	if w.c != nil {
		w.c.send(message{Type: msgReady, Rank: w.cfg.Self.Rank})
	}
}

// Fail tells rank 0 this rank's server ended.
func (w *Worker) Fail(why string) {
	w.fail.set(groupFailed("rank %d on node %s: %s", w.cfg.Self.Rank, w.cfg.Self.Node, why))
	if w.c != nil {
		w.c.send(message{Type: msgFail, Rank: w.cfg.Self.Rank, Reason: why})
	}
}

// Close ends the connection to rank 0.
func (w *Worker) Close() {
	w.closeOnce.Do(func() {
		w.closing.Store(true)
		close(w.closed)
		if w.c != nil {
			w.c.close()
		}
	})
}
