package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/verify"
)

// Timeouts of the facts a rank reports to rank 0.
const (
	reportProbeTimeout = 60 * time.Second
	reportGPUTimeout   = 30 * time.Second
)

// place puts the plan's rank in its group (nil for one node) and adds
// the rank's flags to the plan.
func (e *env) place(p *plan.Plan) (*cluster.Placement, error) {
	pl, err := cluster.Detect(p, cluster.Env{Getenv: e.getenv, Hostname: os.Hostname})
	if err != nil {
		return nil, err
	}
	cluster.Apply(p, pl)
	return pl, nil
}

// placeToShow places the rank for a command that only shows the plan
// (config, preflight): where no orchestrator places it, the plan has no
// rank's flags, and why is said on stderr.
func (e *env) placeToShow(p *plan.Plan) {
	if _, err := e.place(p); err != nil {
		fmt.Fprintf(e.stderr, "sglaunch: multinode: %v\n", err)
	}
}

// rankServer is the running server's pid for a worker's observations
// (0 until it runs).
type rankServer struct{ pid atomic.Int64 }

// joinGroup holds the distributed preflight: rank 0 checks its address
// and ports and waits for every rank's report; a worker reports to rank
// 0. It returns once the group may load, with the member the session
// keeps. SIGINT and SIGTERM end the wait.
func (e *env) joinGroup(ctx context.Context, p *plan.Plan, pl *cluster.Placement, log *slog.Logger, srv *rankServer, rank *runstate.Group) (group.Member, error) {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	m := p.MultiNode
	secret, from, err := group.LoadSecret(e.getenv, m.SecretFile, m.InsecureChannel)
	if err != nil {
		return nil, inputerr.Wrap(fmt.Errorf("multinode: %w", err))
	}
	if secret == nil {
		log.Warn("the group's control channel is not authenticated (multinode.insecure_channel: true): anyone who reaches rank 0's control port can join or stop the group")
	} else {
		log.Info("the group's control channel is authenticated with the secret of " + from)
	}
	cfg := group.Config{
		Self: e.groupReport(ctx, p, pl), Nodes: pl.Nodes, Addr: pl.ControlAddr(m.ControlPort), Secret: secret, Socket: rank.Socket,
		Heartbeat: m.HeartbeatInterval, Missed: m.HeartbeatMissed, RendezvousTimeout: m.RendezvousTimeout, Logger: log,
	}
	var member group.Member
	if pl.Rank == 0 {
		dist, _ := p.Arg(plan.FlagDistInitAddr)
		if err := group.CheckLeader(ctx, pl.Leader, group.RankZeroPorts(p), m.RendezvousTimeout); err != nil {
			return nil, inputerr.Wrap(fmt.Errorf("rank 0 (%s): %w", pl.From["leader"], err))
		}
		if m.Interface != "" {
			ip, err := group.InterfaceIP(m.Interface)
			if err != nil {
				return nil, inputerr.Wrap(err)
			}
			cfg.Bind, dist = ip, cluster.DistInitAddr(ip, m.DistInitPort)
		}
		cfg.DistInitAddr = dist
		l, err := group.Listen(cfg)
		if err != nil {
			return nil, err
		}
		log.Info(fmt.Sprintf("rank 0 of %d on %s: waiting for every rank's report on %s (multinode.control_port)", pl.Nodes, pl.Node, cfg.Addr))
		member = l
	} else {
		cfg.Observe = func(ctx context.Context) ([]byte, error) {
			return verify.ObserveRank(ctx, int(srv.pid.Load()), p.Managed)
		}
		log.Info(fmt.Sprintf("rank %d of %d on %s: reporting to rank 0 at %s", pl.Rank, pl.Nodes, pl.Node, cfg.Addr))
		member = group.NewWorker(cfg)
	}
	start := time.Now()
	dist, err := member.Rendezvous(ctx)
	if err != nil {
		member.Close()
		var mm *group.MismatchError
		if errors.As(err, &mm) || errors.Is(err, group.ErrRefused) {
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

// groupReport is what this rank tells rank 0.
func (e *env) groupReport(ctx context.Context, p *plan.Plan, pl *cluster.Placement) group.Report {
	r := group.Report{Rank: pl.Rank, Node: pl.Node, Group: pl.Group, Fingerprint: p.Fingerprint, Plan: p.View()}
	if py := e.probes.Python(ctx, hostprobe.PythonSpec{Python: p.Python, Environ: p.Environ, Module: p.Module, Timeout: reportProbeTimeout}); py.Err == nil {
		r.SGLang = py.Facts.SGLangVersion
	}
	switch q := e.probes.GPUs(ctx, e.lookPath, reportGPUTimeout); {
	case q.Absent:
		r.GPUNote = "no nvidia-smi"
	case q.Run.Err != nil || q.ParseErr != nil:
		r.GPUNote = "nvidia-smi failed"
	default:
		for _, g := range q.GPUs {
			r.GPUs = append(r.GPUs, g.Name+" "+strconv.FormatInt(g.MemoryMiB, 10)+" MiB")
		}
	}
	model, _ := p.Arg("--model-path")
	r.Model, r.ModelNote = group.ModelFiles(model)
	return r
}

// groupState is the runtime state's record of the rank; on rank 0 with
// the unix socket of local observations, in an owner-only directory of
// this launch's under the runtime directory.
func groupState(p *plan.Plan, pl *cluster.Placement, runtimeDir string) *runstate.Group {
	g := &runstate.Group{Rank: pl.Rank, Nodes: pl.Nodes, Node: pl.Node, Orchestrator: pl.Orchestrator, Control: pl.ControlAddr(p.MultiNode.ControlPort)}
	if pl.Rank == 0 {
		g.Socket = filepath.Join(runtimeDir, "group-"+strconv.Itoa(os.Getpid()), "control.sock")
	}
	return g
}
