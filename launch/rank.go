package launch

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
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

// join holds the group rendezvous (group.Rendezvous) and keeps the
// member for the session. SIGINT, SIGTERM and SIGHUP end the wait.
func (l *launch) join(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	p, log := l.spec.Plan, l.spec.Log
	mn := p.MultiNode
	getenv := l.spec.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	secret, from, err := group.LoadSecret(getenv, mn.SecretFile, mn.InsecureChannel)
	if err != nil {
		return inputerr.Wrap(fmt.Errorf("multinode: %w", err))
	}
	if secret == nil {
		log.Warn("the group's control channel is not authenticated (multinode.insecure_channel: true): anyone who reaches rank 0's control port can join or stop the group")
	} else {
		log.Info("the group's control channel is authenticated with the secret of " + from)
	}
	var socket string
	if g := rankState(p, l.spec.Placement, l.spec.RuntimeDir); g.Socket != "" {
		socket = g.Socket
	}
	m, err := l.steps.rendezvous(ctx, group.Join{
		Plan: p, Placement: l.spec.Placement, Self: l.report(ctx), Logger: log, Secret: secret, Socket: socket,
		Observe: func(ctx context.Context) ([]byte, error) {
			return verify.ObserveRank(ctx, int(l.pid.Load()), p.Managed)
		},
	})
	if err != nil {
		return err
	}
	l.member = m
	// rank 0 may have given another --dist-init-addr.
	l.state.Update(func(s *runstate.State) { s.Plan = p.View() })
	return nil
}

// report is what this rank tells rank 0.
func (l *launch) report(ctx context.Context) group.Report {
	p, pl, probes := l.spec.Plan, l.spec.Placement, l.spec.Probes
	r := group.Report{Rank: pl.Rank, Node: pl.Node, Group: pl.Group, Fingerprint: p.Fingerprint, Plan: p.View()}
	if py := probes.Python(ctx, hostprobe.PythonSpec{Python: p.Python, Environ: p.Environ, Module: p.Module, Timeout: reportProbeTimeout}); py.Err == nil {
		r.SGLang = py.Facts.SGLangVersion
	}
	switch q := probes.GPUs(ctx, l.spec.LookPath, reportGPUTimeout); {
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

// rankState is the runtime state's record of the rank.
// On rank 0 it names the unix socket of local observations (verify
// --group), in an owner-only directory of this launch's under the
// runtime directory.
func rankState(p *plan.Plan, pl *cluster.Placement, runtimeDir string) *runstate.Group {
	g := &runstate.Group{Rank: pl.Rank, Nodes: pl.Nodes, Node: pl.Node, Orchestrator: pl.Orchestrator, Control: pl.ControlAddr(p.MultiNode.ControlPort)}
	if pl.Rank == 0 {
		g.Socket = filepath.Join(runtimeDir, "group-"+strconv.Itoa(os.Getpid()), "control.sock")
	}
	return g
}
