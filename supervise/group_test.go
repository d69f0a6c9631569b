package supervise

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/group"
	"github.com/sglaunch/sglaunch/health"
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
}

func newMember(rank int) *fakeMember {
	return &fakeMember{rank: rank, ready: make(chan struct{}), failed: make(chan struct{}), local: make(chan struct{})}
}

func (m *fakeMember) Rank() int                                  { return m.rank }
func (m *fakeMember) Rendezvous(context.Context) (string, error) { return "", nil }
func (m *fakeMember) LocalReady()                                { m.localOnce.Do(func() { close(m.local) }) }
func (m *fakeMember) GroupReady() <-chan struct{}                { return m.ready }
func (m *fakeMember) Failed() <-chan struct{}                    { return m.failed }
func (m *fakeMember) Close()                                     {}
func (m *fakeMember) Failure() error                             { m.mu.Lock(); defer m.mu.Unlock(); return m.failure }
func (m *fakeMember) fail(err error)                             { m.mu.Lock(); m.failure = err; m.mu.Unlock(); close(m.failed) }
func (m *fakeMember) Fail(why string)                            { m.mu.Lock(); m.told = append(m.told, why); m.mu.Unlock() }
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
	if told := m.toldGroup(); len(told) != 1 || told[0] != "stopped with the group" {
		t.Errorf("told the group %q", told)
	}
	// A worker probes no /health: its own is SGLang's dummy one.
	if strings.Contains(f.logs.String(), "liveness probe") {
		t.Errorf("a worker ran liveness probes:\n%s", f.logs)
	}
	noSurvivors(t, s.ServerPID())
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
