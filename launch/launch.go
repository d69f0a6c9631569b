package launch

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

// Run runs one launch, every step in the order doc.go lists, and
// returns how it ended: nil, an input error, or an *Exit.
func Run(ctx context.Context, s Spec) error {
	return run(ctx, s, realSteps)
}

// session is a started server: *supervise.Session.
type session interface {
	bench.Running
	Stop(ctx context.Context) (launcher.ExitStatus, error)
}

// steps are the steps that reach outside sglaunch (other processes, the
// records, other ranks); tests replace them.
type steps struct {
	sweep       func(l *launch)
	preflight   func(ctx context.Context, l *launch) error
	benchmarked func(ctx context.Context, l *launch) *bench.Benchmarked
	rendezvous  func(ctx context.Context, j group.Join) (group.Member, error)
	start       func(ctx context.Context, p *plan.Plan, opts supervise.Options) (session, error)
}

var realSteps = steps{
	sweep:       sweep,
	preflight:   runPreflight,
	benchmarked: lookUpBenchmarked,
	rendezvous:  group.Rendezvous,
	start: func(ctx context.Context, p *plan.Plan, opts supervise.Options) (session, error) {
		s, err := supervise.Launch(ctx, p, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
}

// launch is one launch in progress: what the steps set up so far.
type launch struct {
	spec     Spec
	steps    steps
	state    *runstate.Launch
	endpoint *endpoint
	member   group.Member
	// pid is the server's, once it runs (a worker's observation).
	pid atomic.Int64
}

// run is Run with its steps given; each step that fails returns at
// once, and the deferred calls undo what the steps before it set up.
func run(ctx context.Context, s Spec, st steps) error {
	l := &launch{spec: s, steps: st}
	p := s.Plan
	st.sweep(l) // 1
	var benchmarked *bench.Benchmarked
	if p != nil {
		if err := st.preflight(ctx, l); err != nil { // 2
			return err
		}
		if s.Records != nil {
			benchmarked = st.benchmarked(ctx, l) // 3
		}
	}
	if err := l.begin(); err != nil { // 4
		return err
	}
	defer l.state.End()
	if p != nil && s.StatusEndpoint {
		if err := l.listen(ctx, benchmarked); err != nil { // 5
			return err
		}
		defer l.endpoint.close()
	}
	if s.Placement != nil {
		if err := l.join(ctx); err != nil { // 6
			return err
		}
		defer l.member.Close()
	}
	if s.Workloads != nil {
		return benchEnd(l.workloads(ctx)) // 7, 8 and 9 for bench
	}
	if p == nil {
		return errors.New("launch: no plan and no workloads")
	}
	err := l.serve(ctx) // 7, 8 and 9
	if s.Placement != nil {
		return groupEnd(err)
	}
	return err
}

// begin writes the runtime state before anything starts; the rank is in
// it from the first write.
func (l *launch) begin() error {
	s := l.spec
	st := runstate.NewState(s.Plan, s.Mode, s.URL)
	if s.Placement != nil {
		st.Group = rankState(s.Plan, s.Placement, s.RuntimeDir)
	}
	var err error
	l.state, err = runstate.Begin(s.RuntimeDir, st, func(err error) { s.Log.Warn("runtime state: " + err.Error()) })
	return err
}
