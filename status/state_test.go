package status

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
	"github.com/sglaunch/sglaunch/internal/sglangapi"
)

// clock is a settable timeNow for one test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

func useClock(t *testing.T) *clock {
	t.Helper()
	// Near the real time: a Tracker stamps phases with the real clock.
	c := &clock{now: time.Now().UTC().Truncate(time.Second)}
	old := timeNow
	timeNow = c.Now
	t.Cleanup(func() { timeNow = old })
	return c
}

var fingerprint = strings.Repeat("ab", 32)

func testInfo() Info {
	return Info{
		Profile: "demo", Mode: "serve", Fingerprint: fingerprint, SGLangVersion: "0.5.10+sim",
		Interpreter: "/usr/bin/python3", URL: "http://127.0.0.1:30000", SglaunchPID: 100,
		LivenessInterval: 10 * time.Second,
	}
}

func refused() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

func unavailable() error {
	return &sglangapi.StatusError{Code: 503, Status: "503 Service Unavailable"}
}

// lifecycle drives a State through a whole launch, calling at after each
// step with the phase it must be in.
type step struct {
	name  string
	do    func(s *State, c *clock)
	phase string
	ready bool
	live  bool
}

func lifecycle() []step {
	var tracker *health.Tracker
	return []step{
		{"launched", func(s *State, c *clock) {}, PhaseStarting, false, true},
		{"started", func(s *State, c *clock) {
			s.Started(4242, c.Now())
			tracker = health.NewTracker(c.Now())
			s.Loading(tracker, health.Estimate{Typical: 30 * time.Second, Loads: 3})
			s.Probe(probeReadiness, health.Check{At: c.Add(time.Second), Err: refused(), Took: time.Millisecond})
		}, PhaseStarting, false, true},
		{"loading weights", func(s *State, c *clock) {
			tracker.Observe([]byte("[2026-12-01 12:00:01 TP0] Load weight begin. avail mem=70.00 GB\n"))
		}, health.PhaseLoadingWeights, false, true},
		{"warming up", func(s *State, c *clock) {
			tracker.Observe([]byte("[2026-12-01 12:00:05 TP0] Load weight end. type=X\nINFO:     Uvicorn running on http://127.0.0.1:30000\n"))
			s.Probe(probeReadiness, health.Check{At: c.Add(2 * time.Second), Err: unavailable(), Took: 3 * time.Millisecond})
		}, health.PhasePortBound, false, true},
		{"ready", func(s *State, c *clock) {
			tracker.Observe([]byte("The server is fired up and ready to roll!\n"))
			at := c.Add(time.Second)
			s.Probe(probeReadiness, health.Check{At: at, Took: 40 * time.Millisecond})
			tracker.Finish()
			s.Ready(health.Load{StartedAt: tracker.Start(), ReadyAt: at, Seconds: at.Sub(tracker.Start()).Seconds(), Phases: tracker.Phases()})
		}, PhaseReady, true, true},
		{"liveness passes", func(s *State, c *clock) {
			s.Probe(probeLiveness, health.Check{At: c.Add(10 * time.Second), Took: 900 * time.Millisecond})
		}, PhaseReady, true, true},
		{"liveness fails", func(s *State, c *clock) {
			s.Probe(probeLiveness, health.Check{At: c.Add(10 * time.Second), Err: unavailable(), Failures: 1, Took: 5 * time.Millisecond})
		}, PhaseUnhealthy, false, true},
		{"healthy again", func(s *State, c *clock) {
			s.Probe(probeLiveness, health.Check{At: c.Add(10 * time.Second), Took: 900 * time.Millisecond})
		}, PhaseReady, true, true},
		{"stopping", func(s *State, c *clock) {
			s.Stopping("stopping: SIGTERM")
		}, PhaseStopping, false, true},
		{"exited", func(s *State, c *clock) {
			c.Add(3 * time.Second)
			s.Exited(137, 137, errors.New("stopped on request; the server was killed by SIGKILL\nlast lines"))
		}, PhaseExited, false, false},
	}
}

func TestStateThroughALaunch(t *testing.T) {
	c := useClock(t)
	s := NewState(testInfo())
	for _, st := range lifecycle() {
		st.do(s, c)
		ready, phase, why := s.ReadyNow()
		if phase != st.phase || ready != st.ready || s.Live() != st.live {
			t.Errorf("%s: got phase %q ready %v live %v (%s), want %q %v %v", st.name, phase, ready, s.Live(), why, st.phase, st.ready, st.live)
		}
		if !ready && why == "" {
			t.Errorf("%s: not ready without a reason", st.name)
		}
	}
	snap := s.Snapshot()
	if snap.Exit == nil || snap.Exit.Status != 137 || snap.Exit.Reason != "stopped on request; the server was killed by SIGKILL" {
		t.Errorf("exit: got %+v, want status 137 and the first line of the error", snap.Exit)
	}
	if snap.Liveness.FailuresTotal != 1 || snap.Liveness.Failures != 0 {
		t.Errorf("liveness: got %+v, want 1 failure in all, none in a row", snap.Liveness)
	}
	if snap.Load.Seconds != 4 || len(snap.Load.Phases) != 4 {
		t.Errorf("load: got %+v, want 4 s and 4 phases", snap.Load)
	}
}

func TestETAWhileLoading(t *testing.T) {
	c := useClock(t)
	s := NewState(testInfo())
	tr := health.NewTracker(c.Now())
	s.Started(1, c.Now())
	s.Loading(tr, health.Estimate{Typical: 30 * time.Second, Loads: 3})
	c.Add(12 * time.Second)
	snap := s.Snapshot()
	if snap.ETA == nil || !snap.ETA.Known || snap.ETA.RemainingS != 18 || snap.ETA.EarlierLoads != 3 {
		t.Errorf("ETA: got %+v, want 18 s left of 30 s from 3 loads", snap.ETA)
	}
	if _, _, why := s.ReadyNow(); !strings.Contains(why, "ETA 18.0s") {
		t.Errorf("why: got %q, want the ETA", why)
	}
	c.Add(time.Minute)
	if snap := s.Snapshot(); snap.ETA == nil || snap.ETA.Known {
		t.Errorf("ETA past the typical time: got %+v, want unknown", snap.ETA)
	}
}

// TestReadyzTurnsWithinOneIntervalOfAHang: a hung rank keeps the probe
// in flight until its own timeout (30 s by default); /readyz must not
// wait for that, only for one interval plus the slack after the last
// answer.
func TestReadyzTurnsWithinOneIntervalOfAHang(t *testing.T) {
	c := useClock(t)
	info := testInfo()
	info.LivenessInterval = 2 * time.Second
	s := NewState(info)
	s.Started(1, c.Now())
	at := c.Add(time.Second)
	s.Ready(health.Load{StartedAt: at.Add(-time.Second), ReadyAt: at})
	s.Probe(probeLiveness, health.Check{At: c.Add(2 * time.Second), Took: 10 * time.Millisecond})
	// The server hangs now: no answer comes any more.
	c.Add(info.LivenessInterval)
	if ok, _, why := s.ReadyNow(); !ok {
		t.Fatalf("one interval after the last answer: not ready (%s); the next answer is not due yet", why)
	}
	c.Add(livenessSlack + time.Millisecond)
	if ok, phase, why := s.ReadyNow(); ok || phase != PhaseUnhealthy || !strings.Contains(why, "no liveness answer for 2.5s") {
		t.Errorf("got ready %v, phase %q (%s); want unhealthy after one interval and the slack", ok, phase, why)
	}
	if !s.Live() {
		t.Error("/livez: a hung server must not make sglaunch's own loop look dead")
	}
}

func TestNoLivenessMeansReadyUntilStop(t *testing.T) {
	c := useClock(t)
	info := testInfo()
	info.LivenessInterval = 0
	s := NewState(info)
	at := c.Now()
	s.Ready(health.Load{StartedAt: at, ReadyAt: at})
	c.Add(time.Hour)
	if ok, _, why := s.ReadyNow(); !ok {
		t.Errorf("liveness off: got not ready (%s), want ready", why)
	}
}
