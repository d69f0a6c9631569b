package group

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// maxConns bounds rank 0's open control connections, strangers
// included: every worker, its restart while its old connection lingers,
// and room for a few more. Connections over it are closed at once.
func (c *Config) maxConns() int { return c.Nodes*2 + 8 }

// msgTimeout bounds the read of one message from an authenticated
// worker: heartbeats come every interval, so a peer that takes longer
// is lost anyway.
func (c *Config) msgTimeout() time.Duration { return c.lostAfter() + 10*time.Second }

// bindAddr is where rank 0 listens: Bind, else the address of Addr's
// host that is this host's (rank 0 checked that the leader's address is
// its own), never every address.
func bindAddr(cfg Config) (string, error) {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return "", fmt.Errorf("control address %q: %w", cfg.Addr, err)
	}
	if cfg.Bind != "" {
		return net.JoinHostPort(cfg.Bind, port), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := Resolve(ctx, host, 10*time.Second)
	if err != nil {
		return "", err
	}
	local, err := localIPs()
	if err != nil {
		return "", fmt.Errorf("cannot list this host's addresses: %w", err)
	}
	for _, ip := range ips {
		if anyLocal([]net.IP{ip}, local) {
			return net.JoinHostPort(ip.String(), port), nil
		}
	}
	return "", fmt.Errorf("%w: %s is %s, and this host has %s", ErrLeaderNotLocal, host, joinIPs(ips), joinIPs(local))
}

// listenLocal opens the unix socket of local observations: owner-only,
// in a directory of its own that is owner-only too.
func listenLocal(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	// A socket left by a killed sglaunch of this pid's predecessor.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return ln, nil
}

// acceptLoop accepts connections on ln until it is closed, at most limit
// at once (more are closed at once), and keeps accepting after an error
// that may pass (too many open files, a connection reset before it was
// accepted), with a backoff as net/http's server does.
func acceptLoop(ln net.Listener, closed <-chan struct{}, limit int, onRefused func(peer string), handle func(net.Conn)) {
	var (
		mu   sync.Mutex
		open int
	)
	backoff := time.Duration(0)
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case <-closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-closed:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		mu.Lock()
		full := open >= limit
		if !full {
			open++
		}
		mu.Unlock()
		if full {
			onRefused(c.RemoteAddr().String())
			c.Close()
			continue
		}
		go func() {
			defer func() {
				mu.Lock()
				open--
				mu.Unlock()
			}()
			handle(c)
		}()
	}
}

// refusalLog logs refused connections at warn at most once per
// refusalEvery, at debug in between, so that a flood cannot flood the
// log.
type refusalLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

const refusalEvery = 10 * time.Second

func (l *Leader) refused(peer, why string) {
	r := &l.refusals
	r.mu.Lock()
	now := time.Now()
	warn := now.Sub(r.last) >= refusalEvery
	n := r.suppressed
	if warn {
		r.last, r.suppressed = now, 0
	} else {
		r.suppressed++
	}
	r.mu.Unlock()
	msg := fmt.Sprintf("control channel: refused a connection from %s: %s", clean(peer, maxName), why)
	if !warn {
		l.cfg.log().Debug(msg)
		return
	}
	if n > 0 {
		msg += fmt.Sprintf(" (and %d more refusals since the last warning)", n)
	}
	l.cfg.log().Warn(msg)
}
