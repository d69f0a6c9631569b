package health

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/sglaunch/sglaunch/internal/sglangapi"
	"github.com/sglaunch/sglaunch/systemd"
)

const (
	// defaultProgressEvery spaces the status lines during a load.
	defaultProgressEvery = 30 * time.Second
	// extendEvery spaces EXTEND_TIMEOUT_USEC while output keeps coming.
	extendEvery = 10 * time.Second
	// extendSlack is added to the window systemd is asked to wait, so that
	// sglaunch's own budget always runs out first and its message is seen.
	extendSlack = 30 * time.Second
	// After the ready line, probe this often for a short while: SGLang may
	// log the line a moment before /health turns 200.
	fastPoll   = 20 * time.Millisecond
	fastWindow = 2 * time.Second
)

var errKick = errors.New("ready line seen")

// Gate waits until the server's /health answers 200.
type Gate struct {
	URL            string            // the /health URL
	PollInterval   time.Duration     // between probes while loading
	RequestTimeout time.Duration     // per probe
	StartTimeout   time.Duration     // budget for the whole load; 0: none
	StallTimeout   time.Duration     // budget without output; 0: none
	ProgressEvery  time.Duration     // status line spacing; 0: 30 s
	Tracker        *Tracker          // the server's output
	Notifier       *systemd.Notifier // nil: none
	Logger         *slog.Logger      // status lines; nil: none
	Estimate       Estimate          // from earlier loads, for the ETA
	// Confirm, when set, is asked whether a 200 came from the right
	// server (the one whose load is tracked, not another holding the
	// port): nil accepts the answer; an error wrapping ErrNotYet keeps
	// probing; any other error ends the wait with it.
	Confirm func() error
	// OnProbe, when set, is told how each finished probe ended (Failures
	// is 0); a probe cut short by the gate itself is not reported. Called
	// from the probing goroutine; it must not block.
	OnProbe func(Check)

	mu        sync.Mutex
	lastProbe string
}

// Wait probes until /health answers 200 and returns when it did. It fails
// with ErrStartTimeout or ErrStalled on the gate's own budgets, and with
// context.Cause(ctx) when ctx ends: the caller cancels ctx when the
// server exits, so a crash ends the wait at once.
func (g *Gate) Wait(ctx context.Context) (time.Time, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := g.Tracker.Start()
	ready := make(chan time.Time, 1)
	refused := make(chan error, 1)
	probing := make(chan struct{})
	go func() {
		defer close(probing)
		g.probeLoop(ctx, ready, refused)
	}()
	// No probe outlives Wait.
	defer func() {
		cancel()
		<-probing
	}()

	tick := time.NewTicker(g.tick())
	defer tick.Stop()
	every := g.ProgressEvery
	if every <= 0 {
		every = defaultProgressEvery
	}
	nextProgress := start.Add(every)
	var lastExtend, extendedFor time.Time
	changed := g.Tracker.Changed()
	g.Notifier.Status(g.statusText(timeNow()))
	g.extend(timeNow(), &lastExtend, &extendedFor)
	for {
		select {
		case at := <-ready:
			return at, nil
		case err := <-refused:
			return time.Time{}, err
		case <-ctx.Done():
			return time.Time{}, context.Cause(ctx)
		case <-changed:
			changed = g.Tracker.Changed()
			g.Notifier.Status(g.statusText(timeNow()))
		case <-tick.C:
			now := timeNow()
			if g.StartTimeout > 0 && now.Sub(start) >= g.StartTimeout {
				return time.Time{}, fmt.Errorf("%w: not ready after %s (health.start_timeout); %s", ErrStartTimeout, secs(now.Sub(start)), g.where(now))
			}
			if idle := now.Sub(g.Tracker.LastOutput()); g.StallTimeout > 0 && idle >= g.StallTimeout {
				return time.Time{}, fmt.Errorf("%w: no output for %s (health.stall_timeout); %s", ErrStalled, secs(idle), g.where(now))
			}
			if !now.Before(nextProgress) {
				text := g.statusText(now)
				if g.Logger != nil {
					g.Logger.Info(text)
				}
				g.Notifier.Status(text)
				for !now.Before(nextProgress) {
					nextProgress = nextProgress.Add(every)
				}
			}
			g.extend(now, &lastExtend, &extendedFor)
		}
	}
}

// tick is how often the budgets are checked: fine enough for short test
// budgets, coarse enough to cost nothing during a 10-minute load.
func (g *Gate) tick() time.Duration {
	d := time.Second
	for _, b := range []time.Duration{g.StartTimeout, g.StallTimeout} {
		if b > 0 && b/10 < d {
			d = b / 10
		}
	}
	return max(d, 10*time.Millisecond)
}

// extend re-sends EXTEND_TIMEOUT_USEC while the server keeps printing,
// asking systemd to wait until sglaunch's own budget would run out.
func (g *Gate) extend(now time.Time, lastExtend, extendedFor *time.Time) {
	if !g.Notifier.Enabled() {
		return
	}
	out := g.Tracker.LastOutput()
	if !lastExtend.IsZero() && (now.Sub(*lastExtend) < extendEvery || !out.After(*extendedFor)) {
		return
	}
	deadline := time.Time{}
	if g.StartTimeout > 0 {
		deadline = g.Tracker.Start().Add(g.StartTimeout)
	}
	if g.StallTimeout > 0 {
		if d := out.Add(g.StallTimeout); deadline.IsZero() || d.Before(deadline) {
			deadline = d
		}
	}
	window := 3 * extendEvery
	if !deadline.IsZero() {
		window = deadline.Sub(now)
	}
	g.Notifier.Extend(window + extendSlack)
	*lastExtend, *extendedFor = now, out
}

// probeLoop polls until a probe answers 200; connection refused, 503 and
// timeouts mean "still loading". When the ready line appears the current
// wait is cut short and probes come quickly for a moment.
func (g *Gate) probeLoop(ctx context.Context, ready chan<- time.Time, refused chan<- error) {
	var fastMu sync.Mutex
	var fastUntil time.Time
	// Attempts run one after another on this goroutine's Do: the hook
	// and CheckRetry of one attempt bracket it.
	var attempt time.Time
	client := &retryablehttp.Client{
		HTTPClient:     httpClient(g.URL, g.RequestTimeout),
		RetryMax:       math.MaxInt32,
		RequestLogHook: func(retryablehttp.Logger, *http.Request, int) { attempt = time.Now() },
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			g.report(attempt, resp, err)
			if err != nil {
				g.noteProbe(describe(err))
				return true, nil
			}
			if resp.StatusCode != http.StatusOK {
				g.noteProbe(notOK(resp))
				return true, nil
			}
			return false, nil
		},
		Backoff: func(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
			fastMu.Lock()
			defer fastMu.Unlock()
			if timeNow().Before(fastUntil) {
				return min(fastPoll, g.PollInterval)
			}
			return g.PollInterval
		},
	}
	kick := g.Tracker.ReadySeen()
	for {
		actx, acancel := context.WithCancelCause(ctx)
		var stop chan struct{}
		if kick != nil {
			stop = make(chan struct{})
			go func(kick <-chan struct{}) {
				select {
				case <-kick:
					acancel(errKick)
				case <-stop:
				}
			}(kick)
		}
		err := probeOnce(actx, client, g.URL)
		if stop != nil {
			close(stop)
		}
		kicked := errors.Is(context.Cause(actx), errKick)
		acancel(nil)
		answered := timeNow() // the ready time, before the check's own cost
		if err == nil && g.Confirm != nil {
			switch cerr := g.Confirm(); {
			case cerr == nil:
			case errors.Is(cerr, ErrNotYet):
				g.noteProbe("answered 200, but " + cerr.Error())
				select {
				case <-ctx.Done():
					return
				case <-time.After(g.PollInterval):
				}
				continue
			default:
				refused <- cerr
				return
			}
		}
		switch {
		case err == nil:
			ready <- answered
			return
		case ctx.Err() != nil:
			return
		case kicked:
			kick = nil
			fastMu.Lock()
			fastUntil = timeNow().Add(fastWindow)
			fastMu.Unlock()
		default:
			// Only a non-retryable failure gets here (a malformed URL):
			// keep polling at the normal pace; the budgets end the load.
			g.noteProbe(describe(err))
			select {
			case <-ctx.Done():
				return
			case <-time.After(g.PollInterval):
			}
		}
	}
}

// report tells OnProbe how one attempt ended.
func (g *Gate) report(started time.Time, resp *http.Response, err error) {
	if g.OnProbe == nil {
		return
	}
	if err == nil && resp.StatusCode != http.StatusOK {
		err = &sglangapi.StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	g.OnProbe(Check{At: timeNow(), Err: err, Took: time.Since(started)})
}

func (g *Gate) noteProbe(s string) {
	g.mu.Lock()
	g.lastProbe = s
	g.mu.Unlock()
}

// LastProbe is how the latest failed probe ended ("connection refused",
// "answered 503 Service Unavailable", ...), or "" before the first.
func (g *Gate) LastProbe() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastProbe
}

// where describes the load's state for status lines and errors.
func (g *Gate) where(now time.Time) string {
	var parts []string
	if p, ok := g.Tracker.Last(); ok {
		parts = append(parts, fmt.Sprintf("last phase: %s at %s", p.Name, secs(p.At)))
	} else {
		parts = append(parts, "no start-up phase seen yet")
	}
	if lp := g.LastProbe(); lp != "" {
		parts = append(parts, "last probe: "+lp)
	}
	return strings.Join(parts, ", ")
}

// statusText is the progress line: elapsed, last phase, ETA.
func (g *Gate) statusText(now time.Time) string {
	elapsed := now.Sub(g.Tracker.Start())
	phase := "starting"
	if p, ok := g.Tracker.Last(); ok {
		phase = p.Name
	}
	eta := "ETA unknown (no earlier load of this plan)"
	if left, ok := g.Estimate.Remaining(elapsed); ok {
		eta = fmt.Sprintf("ETA %s (median of %d earlier loads: %s)", secs(left), g.Estimate.Loads, secs(g.Estimate.Typical))
	} else if g.Estimate.Loads > 0 {
		eta = fmt.Sprintf("ETA unknown (past the median of %d earlier loads: %s)", g.Estimate.Loads, secs(g.Estimate.Typical))
	}
	return fmt.Sprintf("loading: %s elapsed, %s, %s", secs(elapsed), phase, eta)
}

// secs formats a duration as seconds with one decimal, like "585.3s".
func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// Secs formats a duration as sglaunch's lines show it: "585.3s".
func Secs(d time.Duration) string { return secs(d) }
