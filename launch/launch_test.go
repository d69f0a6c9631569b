package launch

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/sglaunch/sglaunch/bench"
	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/inputerr"
	"github.com/sglaunch/sglaunch/internal/runstate"
	"github.com/sglaunch/sglaunch/launcher"
	"github.com/sglaunch/sglaunch/plan"
)

// fakeMember is a group that has met: it never fails.
type fakeMember struct{ rec *recorder }

func (m *fakeMember) Rank() int                                  { return 0 }
func (m *fakeMember) Rendezvous(context.Context) (string, error) { return "", nil }
func (m *fakeMember) LocalReady()                                {}
func (m *fakeMember) GroupReady() <-chan struct{}                { return nil }
func (m *fakeMember) Failed() <-chan struct{}                    { return nil }
func (m *fakeMember) Failure() error                             { return nil }
func (m *fakeMember) Fail(group.End)                             {}
func (m *fakeMember) RequestStop(string)                         {}
func (m *fakeMember) StopRequested() <-chan struct{}             { return nil }
func (m *fakeMember) StopReason() string                         { return "" }
func (m *fakeMember) Drained() <-chan struct{}                   { return nil }
func (m *fakeMember) StopDone(string)                            {}
func (m *fakeMember) Close()                                     { m.rec.note("close-group") }

// TestRunStepsInOrder: serve (one node and a rank), bench and bench
// --url run the same steps in the same order; the runtime state exists
// from the state step on and names the status endpoint from the endpoint
// step on, and is gone once Run returns.
func TestRunStepsInOrder(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *Spec)
		want string
	}{
		{"serve", func(*Spec) {},
			"sweep preflight benchmarked start(state,status) supervise"},
		{"serve rank 0", func(s *Spec) { s.Placement = rankZero() },
			"sweep preflight benchmarked rendezvous(state,status) start(state,status) supervise close-group"},
		{"bench", func(s *Spec) {
			s.Mode, s.Records, s.StatusEndpoint = plan.ModeBench, nil, false
		}, "sweep preflight workloads(state) start(state) stop"},
		{"bench --keep-running", func(s *Spec) { s.Mode, s.Records = plan.ModeBench, nil },
			"sweep preflight workloads(state,status) start(state,status) stop"},
		{"bench --url", func(s *Spec) {
			s.Plan, s.Mode, s.URL, s.Records = nil, plan.ModeBench, "http://127.0.0.1:1", nil
		}, "sweep workloads(state)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSpec(t)
			tt.edit(&s)
			rec := &recorder{}
			st := fakeSteps(t, rec, s.RuntimeDir, nil, &fakeMember{rec: rec})
			if strings.HasPrefix(tt.name, "bench") {
				s.Workloads = func(ctx context.Context, w Workloads) error {
					rec.note(stateOf(t, s.RuntimeDir, "workloads"))
					if w.LaunchID == "" || w.Signals == nil {
						t.Error("the workloads got no launch id or no signals")
					}
					if (w.Start == nil) != (s.Plan == nil) {
						t.Errorf("Start is %v with plan %v", w.Start != nil, s.Plan != nil)
					}
					if w.Start == nil {
						return nil
					}
					srv, err := w.Start(ctx, s.Plan, io.Discard)
					if err != nil {
						return err
					}
					_, err = srv.Stop(ctx)
					return err
				}
			}
			if err := run(t.Context(), s, st); err != nil {
				t.Fatalf("run: %v", err)
			}
			if got := rec.got(); got != tt.want {
				t.Errorf("steps:\n got %s\nwant %s", got, tt.want)
			}
			noState(t, s.RuntimeDir)
		})
	}
}

// stateOf is step, noted with what of the runtime state exists.
func stateOf(t *testing.T, dir, step string) string {
	t.Helper()
	sts, err := runstate.List(dir)
	switch {
	case err != nil:
		t.Errorf("%s: %v", step, err)
	case len(sts) == 0:
	case sts[0].StatusURL != "":
		return step + "(state,status)"
	default:
		return step + "(state)"
	}
	return step
}

// TestRunEarlyReturnRemovesState: a step that fails ends the launch
// there, with no runtime state left behind and the later steps not run.
func TestRunEarlyReturnRemovesState(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(s *Spec, st *steps)
		wantSteps string
		wantInput bool
	}{
		{"preflight fails", func(_ *Spec, st *steps) {
			st.preflight = func(context.Context, *launch) error { return &Exit{Code: 1, Msg: "preflight: 1 check(s) failed"} }
		}, "sweep", false},
		{"status endpoint cannot listen", func(s *Spec, _ *steps) {
			s.Plan.StatusAddr = "256.0.0.1:1"
		}, "sweep preflight benchmarked", true},
		// Issue 22: a taken status port was exit 2 (bad input), which a
		// unit never restarts; the port may be free at the next start.
		{"status endpoint taken", func(s *Spec, _ *steps) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			s.Plan.StatusAddr = ln.Addr().String()
		}, "sweep preflight benchmarked", false},
		{"proxy without an endpoint", func(s *Spec, _ *steps) {
			s.Plan.StatusAddr, s.StatusProxy = "", true
		}, "sweep preflight benchmarked", true},
		{"rendezvous fails", func(s *Spec, _ *steps) {
			s.Placement = rankZero()
		}, "sweep preflight benchmarked rendezvous(state,status)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSpec(t)
			rec := &recorder{}
			st := fakeSteps(t, rec, s.RuntimeDir, nil, nil)
			tt.edit(&s, &st)
			err := run(t.Context(), s, st)
			if err == nil {
				t.Fatal("run succeeded")
			}
			if inputerr.Is(err) != tt.wantInput {
				t.Errorf("input error: got %v, want %v (%v)", inputerr.Is(err), tt.wantInput, err)
			}
			if got := rec.got(); got != tt.wantSteps {
				t.Errorf("steps:\n got %s\nwant %s", got, tt.wantSteps)
			}
			noState(t, s.RuntimeDir)
		})
	}
}

// TestRunExitMapping: how the server ended becomes sglaunch's exit
// status, on one node, on a rank of a group, and for a bench.
func TestRunExitMapping(t *testing.T) {
	exited3 := &launcher.Error{Ran: true, Reason: launcher.ErrExited, Status: 3}
	tests := []struct {
		name     string
		end      error // the session's
		rank     bool
		workload error // with Workloads: what they return
		want     int   // -1: nil; 2: input error
	}{
		{"clean exit", nil, false, nil, -1},
		{"server exits 3", exited3, false, nil, 3},
		{"rank's server exits 3: the group restarts", exited3, true, nil, 1},
		{"gave up on the server", &launcher.Error{Ran: true, Reason: health.ErrStartTimeout}, false, nil, 1},
		{"input error", inputerr.Errorf("bad"), true, nil, 2},
		{"bench ok", nil, false, errNone, -1},
		{"bench interrupted", nil, false, &bench.Interrupted{Signal: syscall.SIGINT}, 130},
		{"bench failed", nil, false, errors.New("workload failed"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testSpec(t)
			if tt.rank {
				s.Placement = rankZero()
			}
			rec := &recorder{}
			st := fakeSteps(t, rec, s.RuntimeDir, tt.end, &fakeMember{rec: rec})
			if tt.workload != nil {
				s.Workloads = func(context.Context, Workloads) error {
					if tt.workload == errNone {
						return nil
					}
					return tt.workload
				}
			}
			err := run(t.Context(), s, st)
			var x *Exit
			switch {
			case tt.want == -1 && err != nil:
				t.Errorf("got %v, want nil", err)
			case tt.want == 2 && !inputerr.Is(err):
				t.Errorf("got %v, want an input error", err)
			case tt.want > 0 && tt.want != 2 && (!errors.As(err, &x) || x.Code != tt.want):
				t.Errorf("got %#v, want exit status %d", err, tt.want)
			}
		})
	}
}

// errNone marks workloads that succeed.
var errNone = errors.New("none")
