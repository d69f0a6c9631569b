package health

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Liveness probes /health after the server is ready. A server hung in a
// collective keeps its processes alive but stops answering /health; this
// is how it gets noticed.
type Liveness struct {
	URL       string
	Interval  time.Duration // between probe starts; must be > 0
	Timeout   time.Duration // per probe
	Threshold int           // consecutive failures that make the server unhealthy
}

// Check is the outcome of one liveness probe.
type Check struct {
	At       time.Time
	Err      error // nil: /health answered 200
	Failures int   // consecutive failures, this one included
	// Took is how long the probe ran.
	Took time.Duration
}

// OK reports whether the probe passed.
func (c Check) OK() bool { return c.Err == nil }

// Unhealthy reports whether the failures have reached the threshold.
func (c Check) Unhealthy(threshold int) bool { return c.Failures >= max(threshold, 1) }

// Reason describes a failed probe briefly.
func (c Check) Reason() string { return describe(c.Err) }

// Result names how the probe ended in one word of a fixed set (see
// Results), for counters.
func (c Check) Result() string { return result(c.Err) }

// Run probes every Interval until ctx ends, calling report after each
// probe. A probe that takes longer than Interval delays the next one.
func (l *Liveness) Run(ctx context.Context, report func(Check)) {
	client := &retryablehttp.Client{
		HTTPClient: httpClient(l.URL, l.Timeout),
		RetryMax:   0,
		CheckRetry: func(ctx context.Context, _ *http.Response, err error) (bool, error) {
			return false, nil
		},
		Backoff: retryablehttp.DefaultBackoff,
	}
	failures := 0
	next := time.NewTimer(l.Interval)
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-next.C:
		}
		started := time.Now()
		err := probeOnce(ctx, client, l.URL)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			failures++
		} else {
			failures = 0
		}
		report(Check{At: timeNow(), Err: err, Failures: failures, Took: time.Since(started)})
		next.Reset(max(l.Interval-time.Since(started), 0))
	}
}
