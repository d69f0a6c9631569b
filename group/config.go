package group

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Config is one rank's part in the group.
type Config struct {
	// Self is this rank's report (its Rank, Node and Group place it).
	Self Report
	// Nodes is the group's size.
	Nodes int
	// Addr is rank 0's control address: where rank 0 listens (its
	// port, on Bind), and where a worker connects.
	Addr string
	// Bind, on rank 0, is the address to listen on; "": the address of
	// Addr's host that is this host's (the cluster interface, never
	// every address).
	Bind string
	// Secret is the group's secret: every message carries a MAC under a
	// key derived from it (see auth.go). Empty: the channel is not
	// authenticated (multinode.insecure_channel).
	Secret []byte
	// Socket, on rank 0, is the unix socket on which a local verify
	// --group asks for every rank's observation ("": none). Its
	// directory is made owner-only.
	Socket string
	// DistInitAddr, on rank 0, is the --dist-init-addr every rank gets.
	DistInitAddr string
	// Heartbeat is the interval of heartbeats; a peer silent for
	// Heartbeat × Missed counts as lost.
	Heartbeat time.Duration
	Missed    int
	// RendezvousTimeout bounds the wait for every rank (rank 0) or for
	// rank 0 (a worker).
	RendezvousTimeout time.Duration
	// Observe, on a worker, returns its observation of its own server
	// for verify --group (JSON; secrets masked). Nil: none.
	Observe func(ctx context.Context) ([]byte, error)
	Logger  *slog.Logger
}

func (c *Config) lostAfter() time.Duration { return c.Heartbeat * time.Duration(max(c.Missed, 1)) }

// causeGrace is how long a rank whose own server ended waits for the
// group's word before naming itself, and how long rank 0 holds an echo
// (End.LostPeer) for its cause: a peer's death kills an idle rank's
// server a moment later (gloo's "Connection closed by peer", then
// SGLang's tree kill), and the group should name the cause, not its echo.
func (c *Config) causeGrace() time.Duration { return min(c.Heartbeat, 500*time.Millisecond) }

// echoPatience is how long a rank whose server ended after losing a
// peer waits for the group's word: rank 0 names a cause, or this echo
// after causeGrace; a rank 0 that says nothing is lost within
// lostAfter.
func (c *Config) echoPatience() time.Duration { return c.lostAfter() + c.causeGrace() }

func (c *Config) log() *slog.Logger {
	if c.Logger == nil {
		return slog.Default()
	}
	return c.Logger
}

// Sentinels of a group's end; check them with errors.Is.
var (
	// ErrGroupFailed: a rank failed or was lost after the load began.
	ErrGroupFailed = errors.New("group failed")
	// ErrRendezvous: the ranks did not all report in time.
	ErrRendezvous = errors.New("group incomplete")
	// ErrRefused: rank 0 refused this rank (another plan, another group).
	ErrRefused = errors.New("refused by rank 0")
)

// Member is one rank's end of the control channel: a *Leader on rank 0,
// a *Worker on the others.
type Member interface {
	// Rank is this rank.
	Rank() int
	// Rendezvous blocks until every rank has reported and matches rank
	// 0, and returns the --dist-init-addr to load with. A mismatch is a
	// *MismatchError; a rank refused, ErrRefused.
	Rendezvous(ctx context.Context) (string, error)
	// LocalReady says this rank's own server is up.
	LocalReady()
	// GroupReady is closed once every rank is up and rank 0's /health
	// passed.
	GroupReady() <-chan struct{}
	// Failed is closed on the group's first failure; Failure names it.
	Failed() <-chan struct{}
	Failure() error
	// Fail says this rank's server ended, which stops the group.
	Fail(end End)
	// RequestStop says this rank was asked to stop (a signal): the group
	// stops as one, and drains on rank 0 (a worker tells rank 0, and
	// keeps its server up until rank 0 has drained).
	RequestStop(why string)
	// StopRequested is closed once a stop of the group was requested,
	// on any rank; StopReason says by whom.
	StopRequested() <-chan struct{}
	StopReason() string
	// Drained is closed once the requested stop is done: rank 0's
	// server drained and ended (on rank 0: once it said so).
	Drained() <-chan struct{}
	// StopDone says this rank's server ended during a requested stop:
	// rank 0 tells every worker that the group drained; a worker tells
	// rank 0, which is no failure.
	StopDone(why string)
	// Close ends this rank's part; peers see it gone.
	Close()
}

// End is how a rank's server ended, as the group is told.
type End struct {
	// Why is the end in a few words ("its server exited, exit status 1").
	Why string
	// LostPeer, when set, is the server's own word that it lost its
	// connection to another rank (gloo's or NCCL's error line): the end
	// is most likely the echo of another rank's failure, which the group
	// names instead when it hears of one within causeGrace.
	LostPeer string
}

// describe is the end as the group names it.
func (e End) describe() string {
	if e.LostPeer == "" {
		return e.Why
	}
	return e.Why + ", after it lost a peer (" + e.LostPeer + ")"
}

// failure is the first failure of a group, once.
type failure struct {
	once sync.Once
	ch   chan struct{}
	err  error
}

func newFailure() *failure { return &failure{ch: make(chan struct{})} }

// set records err as the failure unless one was recorded; it reports
// whether it was the first.
func (f *failure) set(err error) bool {
	first := false
	f.once.Do(func() {
		f.err, first = err, true
		close(f.ch)
	})
	return first
}

func (f *failure) get() error {
	select {
	case <-f.ch:
		return f.err
	default:
		return nil
	}
}

func groupFailed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrGroupFailed, fmt.Sprintf(format, args...))
}

// stopState is a group's requested stop: requested once, then drained.
type stopState struct {
	mu          sync.Mutex
	why         string
	requested   chan struct{}
	drained     chan struct{}
	reqOnce     sync.Once
	drainedOnce sync.Once
}

func newStopState() *stopState {
	return &stopState{requested: make(chan struct{}), drained: make(chan struct{})}
}

// request records the stop; it reports whether it was the first.
func (s *stopState) request(why string) bool {
	first := false
	s.reqOnce.Do(func() {
		s.mu.Lock()
		s.why = why
		s.mu.Unlock()
		close(s.requested)
		first = true
	})
	return first
}

func (s *stopState) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

func (s *stopState) isRequested() bool {
	select {
	case <-s.requested:
		return true
	default:
		return false
	}
}

func (s *stopState) isDrained() bool {
	select {
	case <-s.drained:
		return true
	default:
		return false
	}
}

func (s *stopState) drain() { s.drainedOnce.Do(func() { close(s.drained) }) }
