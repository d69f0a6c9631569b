package supervise

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/health"
)

// recorder is an Observer that notes each call.
type recorder struct {
	mu     sync.Mutex
	events []string
	exited chan struct{}
}

func (r *recorder) note(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, a...))
}

func (r *recorder) Started(pid int, at time.Time) { r.note("started") }
func (r *recorder) Loading(t *health.Tracker, est health.Estimate) {
	r.note("loading %v", t != nil)
}
func (r *recorder) Probe(kind string, c health.Check) { r.note("probe %s %s", kind, c.Result()) }
func (r *recorder) Ready(l health.Load)               { r.note("ready %v", l.Seconds > 0) }
func (r *recorder) Stopping(why string)               { r.note("stopping") }
func (r *recorder) Exited(status, code int, err error) {
	r.note("exited %d %d", status, code)
	close(r.exited)
}

// compact drops repeats of one event in a row: how many probes a load
// takes depends on the machine's speed.
func (r *recorder) compact() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if len(out) == 0 || out[len(out)-1] != e {
			out = append(out, e)
		}
	}
	return strings.Join(out, ", ")
}

func TestObserverSeesTheWholeSession(t *testing.T) {
	f := newFake(t, map[string]string{
		"FAKE_BIND_AFTER":      "0.3",
		"FAKE_WARMUP":          "0.3",
		"FAKE_UNHEALTHY_AFTER": "0.5",
	}, map[string]string{"health.interval": "100ms", "health.failure_threshold": "2", "health.request_timeout": "5s"})
	rec := &recorder{exited: make(chan struct{})}
	opts := f.options(t)
	opts.Observer = rec
	s, err := launch(t, f, opts)
	if err != nil {
		t.Fatalf("Launch: %v\nlogs:\n%s", err, f.logs)
	}
	_ = s.Supervise(context.Background())
	select {
	case <-rec.exited:
	case <-time.After(promptly):
		t.Fatal("Exited never called")
	}
	// The fake answers 500 when unhealthy: two failures and it is killed
	// (a hung server drains nothing: 137), and sglaunch gives up with
	// status 1.
	want := "started, loading true, probe readiness refused, probe readiness unavailable, probe readiness ok, ready true, " +
		"probe liveness ok, probe liveness http_error, stopping, exited 137 1"
	if got := rec.compact(); got != want {
		t.Errorf("observer saw\n  %s\nwant\n  %s", got, want)
	}
}
