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

// observeAll answers a local verify --group with every worker's
// observation, in rank order (rank 0's own, verify reads itself).
func (l *Leader) observeAll(c *conn) {
	defer c.close()
	if !isLocal(c.c.RemoteAddr()) {
		c.send(message{Type: msgRefuse, Reason: errNotLocal.Error() + "; run verify --group on rank 0's host"})
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

// ObserveAll asks rank 0's sglaunch at addr (on this host) for every
// rank's observation of its own server.
func ObserveAll(ctx context.Context, addr string) ([]Observed, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rank 0's control channel %s: %w", addr, err)
	}
	c := newConn(nc)
	defer c.close()
	stop := context.AfterFunc(ctx, c.close)
	defer stop()
	if err := c.send(message{Type: msgObserveAll}); err != nil {
		return nil, err
	}
	m, err := c.recv(time.Now().Add(observeTimeout + 10*time.Second))
	if err != nil {
		return nil, fmt.Errorf("rank 0's control channel %s: %w", addr, err)
	}
	if m.Type != msgObserved {
		return nil, fmt.Errorf("rank 0's control channel %s refused: %s", addr, m.Reason)
	}
	return m.Items, nil
}

// isLocal reports whether a connection comes from this host: loopback,
// or one of its own addresses (rank 0 bound to multinode.interface).
func isLocal(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return false
	}
	if t.IP.IsLoopback() {
		return true
	}
	local, err := localIPs()
	return err == nil && anyLocal([]net.IP{t.IP}, local)
}
