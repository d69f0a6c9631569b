package launch

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/cluster"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/hostprobe"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
	"github.com/sglaunch/sglaunch/supervise"
)

// waitTimeout bounds every wait of these tests; generous for a loaded
// machine.
const waitTimeout = 30 * time.Second

// recorder notes the steps as the fakes see them.
type recorder struct {
	mu    sync.Mutex
	steps []string
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, s)
}

func (r *recorder) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.steps, " ")
}

// fakeSession is a server that runs until Supervise returns end.
type fakeSession struct {
	rec  *recorder
	end  error
	done chan struct{}
}

func (s *fakeSession) Ready() health.Load    { return health.Load{} }
func (s *fakeSession) ServerPID() int        { return 4242 }
func (s *fakeSession) Done() <-chan struct{} { return s.done }
func (s *fakeSession) Err() error            { return s.end }
func (s *fakeSession) Supervise(context.Context) error {
	s.rec.note("supervise")
	return s.end
}
func (s *fakeSession) Stop(context.Context) (launcher.ExitStatus, error) {
	s.rec.note("stop")
	return 0, nil
}

// fakeSteps records each step; the state and the status endpoint stay
// real. Each fake also notes whether the runtime state exists then.
//
// The session ends with end; rendezvous returns member, or fails
// without one.
func fakeSteps(t *testing.T, rec *recorder, dir string, end error, member group.Member) steps {
	t.Helper()
	stateNote := func(step string) {
		sts, err := runstate.List(dir)
		if err != nil {
			t.Errorf("%s: runtime state: %v", step, err)
		}
		switch {
		case len(sts) == 0:
			rec.note(step)
		case sts[0].StatusURL != "":
			rec.note(step + "(state,status)")
		default:
			rec.note(step + "(state)")
		}
	}
	return steps{
		sweep:       func(*launch) { stateNote("sweep") },
		preflight:   func(context.Context, *launch) error { stateNote("preflight"); return nil },
		benchmarked: func(context.Context, *launch) *bench.Benchmarked { stateNote("benchmarked"); return nil },
		rendezvous: func(context.Context, group.Join) (group.Member, error) {
			stateNote("rendezvous")
			if member == nil {
				return nil, errors.New("rank 1 never reported")
			}
			return member, nil
		},
		start: func(_ context.Context, _ *plan.Plan, opts supervise.Options) (session, error) {
			stateNote("start")
			opts.OnStarted(4242)
			return &fakeSession{rec: rec, end: end, done: make(chan struct{})}, nil
		},
	}
}

// python is an interpreter that does not exist: the probes fail at once.
const python = "/nonexistent/python3"

// testSpec is a serve of a plan with a status endpoint on a free port.
func testSpec(t *testing.T) Spec {
	t.Helper()
	return Spec{
		Plan: &plan.Plan{Profile: "p", Mode: plan.ModeServe, Python: python,
			Argv:        []string{python, "-m", "sglang.launch_server", "--port", "30000"},
			Fingerprint: strings.Repeat("a", 64), StatusAddr: "127.0.0.1:0"},
		Mode:       plan.ModeServe,
		RuntimeDir: t.TempDir(), StateDir: t.TempDir(),
		Stdout: io.Discard, Stderr: io.Discard,
		Log:            slog.New(slog.NewTextHandler(io.Discard, nil)),
		Records:        &bench.Store{Dir: t.TempDir()},
		StatusEndpoint: true,
		Probes:         new(hostprobe.Memo),
		LookPath:       func(string) (string, error) { return "", errors.New("absent") },
		// A group's secret, as an orchestrator gives every rank one.
		Getenv: func(k string) string {
			if k == plan.GroupSecretVar {
				return strings.Repeat("5e", 16)
			}
			return ""
		},
	}
}

// rankZero places the launch as rank 0 of two.
func rankZero() *cluster.Placement {
	return &cluster.Placement{Rank: 0, Nodes: 2, Node: "node-0", Leader: "127.0.0.1", Orchestrator: "test"}
}

// noState fails the test when a runtime state file is left in dir.
func noState(t *testing.T, dir string) {
	t.Helper()
	if sts, _ := runstate.List(dir); len(sts) != 0 {
		t.Errorf("runtime state left behind: %s", sts[0].Path)
	}
}
