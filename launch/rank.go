package launch

import (
	"context"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
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
	p := l.spec.Plan
	m, err := l.steps.rendezvous(ctx, group.Join{
		Plan: p, Placement: l.spec.Placement, Self: l.report(ctx), Logger: l.spec.Log,
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
func rankState(p *plan.Plan, pl *cluster.Placement) *runstate.Group {
	return &runstate.Group{Rank: pl.Rank, Nodes: pl.Nodes, Node: pl.Node, Orchestrator: pl.Orchestrator, Control: pl.ControlAddr(p.MultiNode.ControlPort)}
}
