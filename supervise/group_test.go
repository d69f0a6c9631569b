package supervise

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/launcher"
)

var _ group.Member = (*fakeMember)(nil)

// fakeMember is a group.Member the test drives.
type fakeMember struct {
	rank      int
	ready     chan struct{}
	failed    chan struct{}
	mu        sync.Mutex
	failure   error
	local     chan struct{}
	localOnce sync.Once
	told      []string
	lostPeer  []string // Fail's End.LostPeer
	// answer, when set, is the group's word on this rank's Fail, as
	// rank 0 gives it (Failure after Fail).
	answer  error
	stopped []string // StopDone's words
	asked   []string // RequestStop's words
	stopReq chan struct{}
	reqOnce sync.Once
	drained chan struct{}
}

func newMember(rank int) *fakeMember {
	return &fakeMember{rank: rank, ready: make(chan struct{}), failed: make(chan struct{}), local: make(chan struct{}),
		stopReq: make(chan struct{}), drained: make(chan struct{})}
}

func (m *fakeMember) RequestStop(why string) {
	m.mu.Lock()
	m.asked = append(m.asked, why)
	m.mu.Unlock()
	m.requestStop()
}
func (m *fakeMember) requestStop()                   { m.reqOnce.Do(func() { close(m.stopReq) }) }
func (m *fakeMember) StopRequested() <-chan struct{} { return m.stopReq }
func (m *fakeMember) StopReason() string             { return "SIGTERM to rank 1" }
func (m *fakeMember) Drained() <-chan struct{}       { return m.drained }
func (m *fakeMember) StopDone(why string) {
	m.mu.Lock()
	m.stopped = append(m.stopped, why)
	m.mu.Unlock()
}
func (m *fakeMember) calls() (asked, stopped, told []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.asked...), append([]string(nil), m.stopped...), append([]string(nil), m.told...)
}

func (m *fakeMember) Rank() int                                  { return m.rank }
func (m *fakeMember) Rendezvous(context.Context) (string, error) { return "", nil }
func (m *fakeMember) LocalReady()                                { m.localOnce.Do(func() { close(m.local) }) }
func (m *fakeMember) GroupReady() <-chan struct{}                { return m.ready }
func (m *fakeMember) Failed() <-chan struct{}                    { return m.failed }
func (m *fakeMember) Close()                                     {}
func (m *fakeMember) Failure() error                             { m.mu.Lock(); defer m.mu.Unlock(); return m.failure }
func (m *fakeMember) fail(err error)                             { m.mu.Lock(); m.failure = err; m.mu.Unlock(); close(m.failed) }
func (m *fakeMember) Fail(end group.End) {
	m.mu.Lock()
	m.told, m.lostPeer = append(m.told, end.Why), append(m.lostPeer, end.LostPeer)
	answer := m.answer
	m.mu.Unlock()
	if answer != nil {
		m.fail(answer)
	}
}
func (m *fakeMember) toldGroup() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.told...)
}

// TestReadyWaitsForTheGroup: a rank whose own server is up is not ready
// (no OnReady, no READY=1) until the group is.
func TestReadyWaitsForTheGroup(t *testing.T) {
	f := newFake(t, nil, nil)
	m := newMember(1)
	opts := f.options(t)
	opts.Group = m
	ready := make(chan health.Load, 1)
	opts.OnReady = func(l health.Load) { ready <- l }
	done := make(chan error, 1)
	var s *Session
	go func() {
		var err error
		s, err = launch(t, f, opts)
		done <- err
	}()
	select {
	case <-m.local:
	case <-time.After(launchTimeout):
		t.Fatal("the rank never said its server is up")
	}
	select {
	case <-ready:
		t.Fatal("ready before the group")
	case <-time.After(500 * time.Millisecond):
	}
	close(m.ready)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-ready:
	case <-time.After(promptly):
		t.Fatal("not ready after the group was")
	}
	s.Stop(context.Background())
}

// TestGroupFailureKillsAtOnce: the group's failure stops the rank's
// server at once (no drain: a group that lost a rank finishes no
// request), even one that ignores SIGTERM, and the session's error is
// the group's failure, exit code 1.
func TestGroupFailureKillsAtOnce(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_IGNORE": "TERM"}, map[string]string{"stop_timeout": "60s", "health.interval": "50ms"})
	m := newMember(1)
	close(m.ready)
	opts := f.options(t)
	opts.Group = m
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Supervise(context.Background()) }()
	at := time.Now()
	m.fail(fmt.Errorf("%w: rank 0 stops the group: rank 2 on node c: lost", ErrGroupFailed))
	var got error
	select {
	case got = <-done:
	case <-time.After(promptly):
		t.Fatal("the server was not stopped at once")
	}
	if took := time.Since(at); took > promptly {
		t.Errorf("took %s", took)
	}
	if !errors.Is(got, ErrGroupFailed) || !strings.Contains(got.Error(), "rank 2 on node c") {
		t.Errorf("got %v, want the group's failure", got)
	}
	if code := launcher.ExitCode(got); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if told := m.toldGroup(); len(told) != 1 || told[0] != "stopped with the group" {
		t.Errorf("told the group %q", told)
	}
	// A worker probes no /health: its own is SGLang's dummy one.
	if strings.Contains(f.logs.String(), "liveness probe") {
		t.Errorf("a worker ran liveness probes:\n%s", f.logs)
	}
	noSurvivors(t, s.ServerPID())
}

// TestEchoTellsTheGroupItLostAPeer: a worker whose server ended after
// gloo lost its peer says so to the group, and ends with the group's
// failure as its cause, its own server's end beside it.
func TestEchoTellsTheGroupItLostAPeer(t *testing.T) {
	gloo := "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] Connection closed by peer [10.0.0.2]:56408"
	f := newFake(t, map[string]string{"FAKE_EXIT_AFTER": "2", "FAKE_EXIT_CODE": "1", "FAKE_LINES": gloo}, nil)
	m := newMember(2)
	close(m.ready)
	m.answer = fmt.Errorf("%w: rank 0 stops the group: rank 1 on node b: its server exited, exit status 137 (SIGKILL)", ErrGroupFailed)
	opts := f.options(t)
	opts.Group = m
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Supervise(context.Background())
	m.mu.Lock()
	lost := m.lostPeer
	m.mu.Unlock()
	if len(lost) != 1 || lost[0] != "gloo: Connection closed by peer [10.0.0.2]:56408" {
		t.Errorf("told the group it lost the peer %q (told %q)\n%s", lost, m.toldGroup(), f.logs)
	}
	msg, _, _ := strings.Cut(fmt.Sprint(got), "\n")
	t.Log(msg)
	for _, want := range []string{"rank 1 on node b: its server exited", "this rank's server ended with it, after it lost a peer (gloo: Connection closed by peer [10.0.0.2]:56408)", "exited with status 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the rank's end %q does not say %q", msg, want)
		}
	}
	if code := launcher.ExitCode(got); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

// TestServerEndTellsTheGroup: a rank whose server exits tells the group
// how, in the words other ranks print.
func TestServerEndTellsTheGroup(t *testing.T) {
	f := newFake(t, map[string]string{"FAKE_EXIT_AFTER": "2", "FAKE_EXIT_CODE": "3"}, nil)
	m := newMember(0)
	close(m.ready)
	opts := f.options(t)
	opts.Group = m
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Supervise(context.Background())
	if told := m.toldGroup(); len(told) != 1 || !strings.Contains(told[0], "its server exited, exit status 3") {
		t.Errorf("told the group %q", told)
	}
}

// supervised launches a rank with a fake member and a signal channel,
// and supervises it in the background.
func supervised(t *testing.T, rank int, env, set map[string]string, adjust ...func(*Options)) (*fakeMember, *Session, chan os.Signal, chan error, *fake) {
	t.Helper()
	f := newFake(t, env, set)
	m := newMember(rank)
	close(m.ready)
	opts := f.options(t)
	opts.Group = m
	for _, a := range adjust {
		a(&opts)
	}
	sigs := make(chan os.Signal, 4)
	opts.Signals = sigs
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Supervise(context.Background()) }()
	return m, s, sigs, done, f
}

func ended(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(promptly):
		t.Fatal("the session did not end")
	}
	return nil
}

// TestWorkerStopSignalHoldsServerUntilRankZeroDrained pins issue 22's
// first defect: a worker's server ended on its own SIGTERM at once (a
// scancel signals every rank), which cut every stream of the group
// while rank 0 drained, and the worker then reported "group failed".
// Now the worker tells rank 0, keeps its server up until rank 0 says it
// drained (also through a second SIGTERM: Slurm sends one itself and
// one through srun), and exits 0.
func TestWorkerStopSignalHoldsServerUntilRankZeroDrained(t *testing.T) {
	m, s, sigs, done, _ := supervised(t, 1, nil, map[string]string{"stop_timeout": "60s"})
	sigs <- syscall.SIGTERM
	select {
	case <-m.stopReq:
	case <-time.After(promptly):
		t.Fatal("the worker did not ask the group to stop")
	}
	sigs <- syscall.SIGTERM // Slurm's second one, through srun
	select {
	case err := <-done:
		t.Fatalf("the worker's server ended before rank 0 drained: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	if !s.Running() {
		t.Fatal("the worker's server is not running during rank 0's drain")
	}
	close(m.drained)
	err := ended(t, done)
	if code := launcher.ExitCode(err); code != 0 {
		t.Errorf("exit status %d (%v), want 0 for a requested, drained stop", code, err)
	}
	if _, ok := launcher.StoppedBySignal(err); ok {
		t.Errorf("%v ends sglaunch by the signal; want exit status 0", err)
	}
	asked, stopped, told := m.calls()
	if len(asked) != 1 || len(told) != 0 || len(stopped) != 1 {
		t.Errorf("asked %q, stop done %q, failures told %q", asked, stopped, told)
	}
}

// TestRankZeroDrainsWhenAWorkerAsks: a worker's stop request stops rank
// 0's server as a signal would (it drains); its end is the group's stop
// done, not a failure, and rank 0 exits 0.
func TestRankZeroDrainsWhenAWorkerAsks(t *testing.T) {
	m, _, _, done, f := supervised(t, 0, nil, nil)
	m.requestStop()
	err := ended(t, done)
	if code := launcher.ExitCode(err); code != 0 {
		t.Errorf("exit status %d (%v), want 0", code, err)
	}
	_, stopped, told := m.calls()
	if len(stopped) != 1 || len(told) != 0 {
		t.Errorf("stop done %q, failures told %q", stopped, told)
	}
	if strings.Contains(f.logs.String(), "group failed") {
		t.Errorf("a requested stop logged a failure:\n%s", f.logs)
	}
}

// TestRankZeroSignalStopsTheGroup: rank 0's own SIGTERM stops the whole
// group (the workers hold their servers until it drained) and drains its
// server; rank 0 exits 0.
func TestRankZeroSignalStopsTheGroup(t *testing.T) {
	m, _, sigs, done, _ := supervised(t, 0, nil, nil)
	sigs <- syscall.SIGTERM
	err := ended(t, done)
	if code := launcher.ExitCode(err); code != 0 {
		t.Errorf("exit status %d (%v), want 0", code, err)
	}
	asked, stopped, _ := m.calls()
	if len(asked) != 1 || len(stopped) != 1 {
		t.Errorf("asked %q, stop done %q", asked, stopped)
	}
}

// TestWorkerExitsOneWhenRankZeroStoppedItByFailure pins issue 22's
// second defect: a worker whose group ended without a requested stop
// (rank 0's server exited by itself) exited 0, so neither the
// orchestrator nor Restart=on-failure restarted the group.
func TestWorkerExitsOneWhenRankZeroStoppedItByFailure(t *testing.T) {
	m, _, _, done, _ := supervised(t, 1, nil, nil)
	m.fail(fmt.Errorf("%w: rank 0 stops the group: rank 0 on node a: its server exited, exit status 0", ErrGroupFailed))
	if code := launcher.ExitCode(ended(t, done)); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

// TestServerExitZeroOnARankIsAFailure: a rank's server that exits 0 by
// itself leaves a group that cannot serve: exit status 1, not 0.
func TestServerExitZeroOnARankIsAFailure(t *testing.T) {
	_, _, _, done, _ := supervised(t, 1, map[string]string{"FAKE_EXIT_AFTER": "1", "FAKE_EXIT_CODE": "0"}, nil)
	err := ended(t, done)
	if code := launcher.ExitCode(err); code != 1 || !errors.Is(err, ErrGroupFailed) {
		t.Errorf("exit status %d (%v), want 1, a group failure", code, err)
	}
}

// TestWorkerIgnoringSIGTERMEndsAfterDrain: under Slurm a rank's server
// starts with SIGTERM ignored (scancel signals every process of the
// step: the servers must outlive it for rank 0 to drain); once rank 0
// drained, the worker ends its server's tree at once rather than wait
// stop_timeout for a SIGTERM it ignores, and exits 0.
func TestWorkerIgnoringSIGTERMEndsAfterDrain(t *testing.T) {
	// The fake installs a SIGTERM handler of its own, as SGLang's main
	// process does; FAKE_IGNORE stands for the ranks' inherited ignore
	// (launcher's TestIgnoreSIGTERMKeepsPidArgvAndExe pins that).
	m, s, sigs, done, _ := supervised(t, 1, map[string]string{"FAKE_IGNORE": "TERM"}, map[string]string{"stop_timeout": "60s"}, func(o *Options) { o.IgnoreSIGTERM = true })
	sigs <- syscall.SIGTERM
	<-m.stopReq
	syscall.Kill(s.ServerPID(), syscall.SIGTERM) // Slurm's, to every process
	time.Sleep(300 * time.Millisecond)
	if !s.Running() {
		t.Fatal("the server ended on SIGTERM")
	}
	at := time.Now()
	close(m.drained)
	err := ended(t, done)
	if took := time.Since(at); took > promptly {
		t.Errorf("the worker took %s to end after rank 0 drained", took)
	}
	if code := launcher.ExitCode(err); code != 0 || !strings.Contains(err.Error(), "drained") {
		t.Errorf("exit status %d (%v), want 0, drained", code, err)
	}
	if _, ok := launcher.StoppedBySignal(err); ok {
		t.Errorf("%v ends sglaunch by a signal", err)
	}
}
