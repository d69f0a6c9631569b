package group

import (
	"context"
	"fmt"
	"net"
	"time"
)

// observeTimeout bounds one rank's observation (verify's site probe
// runs the interpreter).
const observeTimeout = 90 * time.Second

// observeAll answers a local verify --group, on the owner-only unix
// socket (an observation holds the processes' command lines and
// environments: only who may read rank 0's own may ask), with every
// worker's observation, in rank order (rank 0's own, verify reads
// itself).
func (l *Leader) observeAll(c *conn) {
	defer c.close()
	m, err := c.recv(time.Now().Add(helloTimeout), maxHello)
	if err != nil {
		return
	}
	if m.Type != msgObserveAll {
		c.send(message{Type: msgRefuse, Reason: "unexpected message"})
		return
	}
	l.observeMu.Lock()
	defer l.observeMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), observeTimeout)
	defer cancel()
	var items []Observed
	peers := l.peers()
	for _, p := range peers {
		select { // a late reply to an earlier request
		case <-p.replies:
		default:
		}
		p.c.send(message{Type: msgObserve})
	}
	for _, p := range peers {
		o := Observed{Rank: p.rank, Node: p.node}
		select {
		case m := <-p.replies:
			o.Data, o.Error = m.Data, m.Reason
		case <-ctx.Done():
			o.Error = fmt.Sprintf("no observation within %s", observeTimeout)
		}
		items = append(items, o)
	}
	if len(peers) < l.cfg.Nodes-1 {
		items = append(items, Observed{Rank: -1, Error: fmt.Sprintf("only %d of %d workers are in the group", len(peers), l.cfg.Nodes-1)})
	}
	c.send(message{Type: msgObserved, Items: items})
}

// answerObserve is a worker's reply to rank 0's observe.
func answerObserve(ctx context.Context, observe func(context.Context) ([]byte, error)) message {
	m := message{Type: msgObservation}
	if observe == nil {
		m.Reason = "this rank observes nothing"
		return m
	}
	data, err := observe(ctx)
	if err != nil {
		m.Reason = err.Error()
	}
	m.Data = data
	return m
}

// ObserveAll asks rank 0's sglaunch, through its unix socket on this
// host, for every rank's observation of its own server.
func ObserveAll(ctx context.Context, socket string) ([]Observed, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("rank 0's control socket: %w", err)
	}
	c := newConn(nc)
	defer c.close()
	stop := context.AfterFunc(ctx, c.close)
	defer stop()
	if err := c.send(message{Type: msgObserveAll}); err != nil {
		return nil, err
	}
	m, err := c.recv(time.Now().Add(observeTimeout+10*time.Second), maxObserved)
	if err != nil {
		return nil, fmt.Errorf("rank 0's control socket %s: %w", socket, err)
	}
	if m.Type != msgObserved {
		return nil, fmt.Errorf("rank 0's control socket %s refused: %s", socket, m.Reason)
	}
	return m.Items, nil
}
