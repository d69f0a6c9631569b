package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/proc"
	"github.com/sglaunch/sglaunch/internal/testkit"
	"github.com/sglaunch/sglaunch/plan"
)

// launchTimeout bounds waits for a child to start or print: generous, so
// that a loaded 2-core machine never fails the test.
const launchTimeout = 60 * time.Second

// shPlan is a plan whose "server" is a shell script.
func shPlan(t *testing.T, script string) *plan.Plan {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	p := &plan.Plan{Profile: "sh", Argv: []string{sh, "-c", script}, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	p.ApplySettings(plan.DefaultSettings())
	return p
}

func start(t *testing.T, p *plan.Plan) (*Process, *testkit.SyncBuffer) {
	t.Helper()
	var out testkit.SyncBuffer
	s, err := Start(context.Background(), p, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _, _ = s.Stop(context.Background(), syscall.SIGKILL, 0) })
	return s, &out
}

// trapped starts a shell that sets trap (a TERM handler) and returns
// once the shell says it is set, so that the test's SIGTERM meets the
// trap and not the shell's default.
func trapped(t *testing.T, trap string) *Process {
	t.Helper()
	s, out := start(t, shPlan(t, trap+"; echo trap set; while :; do sleep 0.05; done"))
	testkit.WaitFor(t, launchTimeout, `"trap set"`, func() bool { return strings.Contains(out.String(), "trap set\n") })
	return s
}

// TestStopWithinGrace: a process that ends on SIGTERM stops with a nil
// error and its status.
func TestStopWithinGrace(t *testing.T) {
	s := trapped(t, "trap 'exit 7' TERM")
	status, err := s.Stop(context.Background(), syscall.SIGTERM, launchTimeout)
	if err != nil || status != 7 {
		t.Errorf("Stop: got %v, %v; want exit status 7, nil", status, err)
	}
	if proc.Alive(s.PID()) {
		t.Error("the process survived Stop")
	}
}

// TestStopEscalates: a process that ignores SIGTERM is killed once the
// grace period is over, and Stop's error says so.
func TestStopEscalates(t *testing.T) {
	s := trapped(t, "trap '' TERM")
	began := time.Now()
	status, err := s.Stop(context.Background(), syscall.SIGTERM, 300*time.Millisecond)
	if !errors.Is(err, ErrKilled) {
		t.Errorf("Stop: got %v, want ErrKilled", err)
	}
	if status != 128+9 {
		t.Errorf("status %v, want 137", status)
	}
	if d := time.Since(began); d > launchTimeout {
		t.Errorf("Stop took %v", d)
	}
}

// TestWaitReturnsOnContext: Wait gives up when its context ends and the
// process keeps running.
func TestWaitReturnsOnContext(t *testing.T) {
	s, _ := start(t, shPlan(t, "sleep 30"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait: got %v, want the context's error", err)
	}
	if !s.Running() {
		t.Error("the process stopped when Wait gave up")
	}
}
