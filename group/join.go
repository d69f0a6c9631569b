package group

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/plan"
)

// Join is one rank's part in a group's start: where it sits, what it
// reports to rank 0, and how a worker observes its own server.
type Join struct {
	Plan      *plan.Plan
	Placement *cluster.Placement
	// Self is this rank's report to rank 0.
	Self Report
	// Observe, on a worker, is its observation of its own server for
	// verify --group.
	Observe func(ctx context.Context) ([]byte, error)
	Logger  *slog.Logger
	// Secret authenticates the control channel (nil: the profile accepts
	// an unauthenticated one); Socket, on rank 0, is where local clients
	// ask for the workers' observations.
	Secret []byte
	Socket string
}

// Rendezvous holds the distributed preflight: rank 0 checks its address
// and ports and waits for every rank's report; a worker reports to rank
// 0. It returns once the group may load, with the member the session
// keeps; rank 0's --dist-init-addr, when it chose another one
// (multinode.interface), is added to the plan. A problem of the
// group's input (rank 0's address, a mismatch, a refusal) is an input
// error. Cancelling ctx ends the wait.
func Rendezvous(ctx context.Context, j Join) (Member, error) {
	member, err := j.member(ctx)
	if err != nil {
		return nil, err
	}
	p, pl, log := j.Plan, j.Placement, j.Logger
	start := time.Now()
	dist, err := member.Rendezvous(ctx)
	if err != nil {
		member.Close()
		var mm *MismatchError
		if errors.As(err, &mm) || errors.Is(err, ErrRefused) {
			return nil, inputerr.Wrap(err)
		}
		return nil, err
	}
	if cur, _ := p.Arg(plan.FlagDistInitAddr); dist != "" && dist != cur {
		p.AddDerived("dist-init-addr", dist, "rank 0 (multinode.interface)")
	}
	log.Info(fmt.Sprintf("group preflight passed: %d ranks run one plan (fingerprint %s) in %s; loading with --dist-init-addr %s",
		pl.Nodes, p.ShortFingerprint(), time.Since(start).Round(time.Millisecond), dist))
	return member, nil
}

// member opens this rank's end of the control channel: rank 0 listens,
// once its address and ports are checked; a worker dials.
func (j Join) member(ctx context.Context) (Member, error) {
	p, pl, log := j.Plan, j.Placement, j.Logger
	m := p.MultiNode
	cfg := Config{
		Self: j.Self, Nodes: pl.Nodes, Addr: pl.ControlAddr(m.ControlPort), Secret: j.Secret, Socket: j.Socket,
		Heartbeat: m.HeartbeatInterval, Missed: m.HeartbeatMissed, RendezvousTimeout: m.RendezvousTimeout, Logger: log,
	}
	if pl.Rank != 0 {
		cfg.Observe = j.Observe
		log.Info(fmt.Sprintf("rank %d of %d on %s: reporting to rank 0 at %s", pl.Rank, pl.Nodes, pl.Node, cfg.Addr))
		return NewWorker(cfg), nil
	}
	dist, _ := p.Arg(plan.FlagDistInitAddr)
	if err := CheckLeader(ctx, pl.Leader, RankZeroPorts(p), m.RendezvousTimeout); err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("rank 0 (%s): %w", pl.From["leader"], err))
	}
	if m.Interface != "" {
		ip, err := InterfaceIP(m.Interface)
		if err != nil {
			return nil, inputerr.Wrap(err)
		}
		cfg.Bind, dist = ip, cluster.DistInitAddr(ip, m.DistInitPort)
	}
	cfg.DistInitAddr = dist
	l, err := Listen(cfg)
	if err != nil {
		return nil, err
	}
	log.Info(fmt.Sprintf("rank 0 of %d on %s: waiting for every rank's report on %s (multinode.control_port)", pl.Nodes, pl.Node, cfg.Addr))
	return l, nil
}
