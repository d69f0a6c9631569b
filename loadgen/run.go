package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Load says what each request looks like and how much to send per level.
type Load struct {
	API       API
	Model     string // the chat requests' model; empty leaves it out
	InputLen  int
	OutputLen int
	// Requests is the number of measured requests per level. When zero,
	// Duration bounds the level instead: requests are started until it
	// has passed, and those in flight then are awaited and counted.
	Requests int
	Duration time.Duration
	// Warmup requests run before each level and are not counted.
	Warmup int
	// Seed makes the inputs and the open loop's arrivals repeatable.
	Seed uint64
	// RequestTimeout bounds each request; zero means none.
	RequestTimeout time.Duration
	// Prompts, when set, are the requests' inputs and output lengths
	// (a dataset): request i takes Prompts[(Offset+i) % len(Prompts)], and
	// InputLen and OutputLen are not used. Warm-up request i takes
	// Prompts[i].
	Prompts []Prompt
	// Offset numbers the requests after those of earlier runs of the same
	// level (rounds), so that each round draws its own inputs.
	Offset int
	// SLO, when set, adds request_goodput to the metrics.
	SLO *SLO
	// BeforeMeasure, when set, runs after the warm-up and before the
	// measured requests (bench flushes the server's cache there); an
	// error ends the level.
	BeforeMeasure func(ctx context.Context) error
}

// prompt is the input of request i (a warm-up one when warm).
func (l Load) prompt(i int, warm bool) Prompt {
	if len(l.Prompts) == 0 {
		return Prompt{InputLen: l.InputLen, OutputLen: l.OutputLen}
	}
	if warm {
		return l.Prompts[i%len(l.Prompts)]
	}
	return l.Prompts[(l.Offset+i)%len(l.Prompts)]
}

// Level is one load level: a closed loop of Concurrency streams, or (Rate
// > 0) an open loop of Poisson arrivals at Rate requests/s with at most
// Concurrency in flight (0: no cap).
type Level struct {
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"request_rate,omitempty"`
}

// String names the level: "c=8", "rate=4/s", "rate=4/s max=32".
func (l Level) String() string {
	if l.Rate <= 0 {
		return "c=" + strconv.Itoa(l.Concurrency)
	}
	s := "rate=" + strconv.FormatFloat(l.Rate, 'g', -1, 64) + "/s"
	if l.Concurrency > 0 {
		s += " max=" + strconv.Itoa(l.Concurrency)
	}
	return s
}

// singleStream reports whether the level runs one request at a time.
func (l Level) singleStream() bool { return l.Concurrency == 1 }

// SingleStream reports whether the level runs one request at a time (its
// metrics then include the decode rate).
func (l Level) SingleStream() bool { return l.singleStream() }

// ErrorCount is one distinct failure and how often it happened.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// LevelResult is what one level measured.
type LevelResult struct {
	Level
	Started time.Time    `json:"started"`
	Ended   time.Time    `json:"ended"`
	Metrics Metrics      `json:"metrics"`
	Errors  []ErrorCount `json:"errors,omitempty"`
	// TokenCounts says where the per-chunk token counts that split ITL
	// came from: "server" (meta_info.completion_tokens, or usage on every
	// chat chunk) or "estimated" (some chat streams said only their
	// total, spread evenly over their chunks).
	TokenCounts string `json:"token_counts,omitempty"`
	// Warnings say what may have held the level back on the client's
	// side (a limit on open files below its streams).
	Warnings []string `json:"warnings,omitempty"`
	// Samples are the requests that ran to an outcome, in the order they
	// were numbered; not stored in records (bench --details writes them).
	Samples []Sample `json:"-"`
}

// Counters are a level's live totals, for progress displays.
type Counters struct {
	Label    string
	Total    int           // measured requests; 0 when bound by Duration
	Duration time.Duration // set when bound by Duration
	Start    time.Time
	// Warning, when set, says what may hold the level back (see
	// LevelResult.Warnings).
	Warning string
	done    atomic.Int64
	failed  atomic.Int64
	tokens  atomic.Int64
}

// Done is the number of requests finished, failed ones included.
func (c *Counters) Done() int64 { return c.done.Load() }

// Failed is the number of requests that failed.
func (c *Counters) Failed() int64 { return c.failed.Load() }

// Tokens is the number of output tokens streamed so far.
func (c *Counters) Tokens() int64 { return c.tokens.Load() }

// Observer follows levels as they run; Progress is one.
type Observer interface {
	LevelStart(c *Counters)
	LevelEnd(c *Counters, r LevelResult)
}

// maxErrors is how many distinct failure messages a result keeps.
const maxErrors = 5

// warmupOutput caps the warm-up requests' output, as bench_serving does.
const warmupOutput = 32

// Run runs one level and returns what it measured. On an error the result
// still holds the metrics of the requests that finished: ErrServerGone
// when the server refused connections, ErrNoneCompleted when every
// request failed, ErrWarmup when the warm-up did, or the context's error.
func (c *Client) Run(ctx context.Context, load Load, lvl Level, obs Observer) (LevelResult, error) {
	res := LevelResult{Level: lvl}
	if err := check(load, lvl); err != nil {
		return res, err
	}
	defer lowerGC()()
	// Before the first connection: every stream holds one open file.
	fdWarning := raiseFileLimit(lvl.Concurrency)
	if load.Warmup > 0 {
		if err := c.warmup(ctx, load, lvl); err != nil {
			return res, err
		}
	}
	c.warmConns(ctx, lvl.Concurrency)
	if load.BeforeMeasure != nil {
		if err := load.BeforeMeasure(ctx); err != nil {
			return res, err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctr := &Counters{Label: lvl.String(), Total: load.Requests, Duration: load.Duration}
	if ctr.Warning = fdWarning; fdWarning != "" {
		res.Warnings = append(res.Warnings, fdWarning)
	}
	r := &runner{c: c, load: load, ctr: ctr, cancel: cancel}
	if load.Requests > 0 {
		r.samples = make([]Sample, load.Requests)
	}
	ctr.Start = timeNow()
	res.Started = ctr.Start
	if obs != nil {
		obs.LevelStart(ctr)
	}
	if lvl.Rate > 0 {
		r.openLoop(ctx, lvl)
	} else {
		r.closedLoop(ctx, lvl.Concurrency)
	}
	res.Ended = timeNow()
	samples := r.finished()
	res.Metrics = Compute(samples, res.Ended.Sub(res.Started), lvl.singleStream())
	if load.SLO != nil {
		res.Metrics.AddGoodput(samples, *load.SLO)
	}
	res.Errors = CountErrors(samples)
	res.TokenCounts = tokenCounts(samples)
	res.Samples = samples
	if obs != nil {
		obs.LevelEnd(ctr, res)
	}
	if cause := context.Cause(ctx); cause != nil {
		return res, cause
	}
	if res.Metrics.Completed == 0 {
		msg := ""
		if len(res.Errors) > 0 {
			msg = ": " + res.Errors[0].Message
		}
		return res, fmt.Errorf("%w%s", ErrNoneCompleted, msg)
	}
	return res, nil
}

func check(load Load, lvl Level) error {
	switch {
	case !load.API.Valid():
		return fmt.Errorf("unknown API %q", load.API)
	case len(load.Prompts) == 0 && (load.InputLen < 1 || load.OutputLen < 1):
		return errors.New("input and output lengths must be at least 1")
	case load.Requests < 0 || load.Duration < 0 || (load.Requests == 0 && load.Duration == 0):
		return errors.New("a level needs a number of requests or a duration")
	case lvl.Rate < 0 || (lvl.Rate == 0 && lvl.Concurrency < 1):
		return errors.New("a level needs a concurrency of at least 1 or a request rate")
	}
	return nil
}

// warmup sends load.Warmup short requests, at most the level's
// concurrency at once, and fails only if none succeeds.
func (c *Client) warmup(ctx context.Context, load Load, lvl Level) error {
	n := load.Warmup
	par := min(n, max(lvl.Concurrency, 1))
	var next atomic.Int64
	samples := make([]Sample, n)
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				// Warm-up inputs come from their own stream of the seed.
				rng := newRand(load.Seed, 1<<63|uint64(i))
				samples[i] = *c.request(ctx, &load, load.prompt(i, true), warmupOutput, rng, func(int) {})
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, s := range samples {
		if s.OK {
			return nil
		}
	}
	if samples[0].refused {
		return fmt.Errorf("%w: %s", ErrServerGone, samples[0].Err)
	}
	return fmt.Errorf("%w: %s", ErrWarmup, samples[0].Err)
}

// request sends one request for prompt p, its output capped at maxOut
// (0: no cap).
func (c *Client) request(ctx context.Context, load *Load, p Prompt, maxOut int, rng *rand.Rand, onToken func(int)) *Sample {
	if load.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, load.RequestTimeout)
		defer cancel()
	}
	out := p.OutputLen
	if maxOut > 0 {
		out = min(out, maxOut)
	}
	return c.do(ctx, load.API, body(load.API, load.Model, p, out, rng), p.InputLen, out, onToken)
}

// runner runs the measured requests of one level.
type runner struct {
	c      *Client
	load   Load
	ctr    *Counters
	cancel context.CancelCauseFunc
	next   atomic.Int64 // index of the next request

	mu      sync.Mutex
	samples []Sample // by index when the count is fixed, else appended
	extra   []Sample
}

// one runs request i and records it.
func (r *runner) one(ctx context.Context, i int) {
	rng := newRand(r.load.Seed, uint64(r.load.Offset+i))
	s := r.c.request(ctx, &r.load, r.load.prompt(i, false), 0, rng, func(n int) { r.ctr.tokens.Add(int64(n)) })
	r.record(ctx, i, s)
}

// record counts request i's sample and keeps it. It is a function of
// its own so that its frame is not on the stack the stream waits on.
func (r *runner) record(ctx context.Context, i int, s *Sample) {
	s.Index = i
	if !s.OK && ctx.Err() != nil {
		return // cut short by the end of the level, not the server's doing
	}
	if s.refused {
		r.cancel(fmt.Errorf("%w: %s", ErrServerGone, s.Err))
	}
	if !s.OK {
		r.ctr.failed.Add(1)
	}
	r.ctr.done.Add(1)
	r.mu.Lock()
	if r.load.Requests > 0 {
		r.samples[i] = *s
	} else {
		r.extra = append(r.extra, *s)
	}
	r.mu.Unlock()
}

// claim returns the index of the next request to start, or false once
// the level has sent all it should.
func (r *runner) claim(deadline time.Time) (int, bool) {
	i := int(r.next.Add(1)) - 1
	if r.load.Requests > 0 {
		return i, i < r.load.Requests
	}
	return i, timeNow().Before(deadline)
}

func (r *runner) closedLoop(ctx context.Context, streams int) {
	deadline := r.ctr.Start.Add(r.load.Duration)
	if r.load.Requests > 0 {
		streams = min(streams, r.load.Requests)
	}
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			for ctx.Err() == nil {
				i, ok := r.claim(deadline)
				if !ok {
					return
				}
				r.one(ctx, i)
			}
		})
	}
	wg.Wait()
}

// openLoop starts requests at Poisson arrivals: exponential gaps with
// mean 1/rate, on an absolute schedule so late wake-ups do not slow the
// rate. Requests over the cap wait for a slot, as bench_serving's do.
func (r *runner) openLoop(ctx context.Context, lvl Level) {
	deadline := r.ctr.Start.Add(r.load.Duration)
	gaps := newArrivals(r.load.Seed, lvl.Rate)
	var slots chan struct{}
	if lvl.Concurrency > 0 {
		slots = make(chan struct{}, lvl.Concurrency)
	}
	var wg sync.WaitGroup
	at := r.ctr.Start
	for ctx.Err() == nil {
		i, ok := r.claim(deadline)
		if !ok {
			break
		}
		wg.Go(func() {
			if slots != nil {
				select {
				case slots <- struct{}{}:
					defer func() { <-slots }()
				case <-ctx.Done():
					return
				}
			}
			r.one(ctx, i)
		})
		at = at.Add(gaps.next())
		if r.load.Duration > 0 && at.After(deadline) {
			break
		}
		if wait := at.Sub(timeNow()); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
	wg.Wait()
}

// newRand is the random stream number stream of a seed.
func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// arrivals draws the gaps between Poisson arrivals: exponential with mean
// 1/rate, from a stream of the seed of its own.
type arrivals struct {
	rng  *rand.Rand
	rate float64
}

func newArrivals(seed uint64, rate float64) *arrivals {
	return &arrivals{rng: newRand(seed, 0x9e3779b97f4a7c15), rate: rate}
}

func (a *arrivals) next() time.Duration {
	return time.Duration(a.rng.ExpFloat64() / a.rate * float64(time.Second))
}

// finished returns the samples of the requests that ran to an outcome.
func (r *runner) finished() []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.load.Requests == 0 {
		return r.extra
	}
	var out []Sample
	for _, s := range r.samples {
		if !s.Start.IsZero() {
			out = append(out, s)
		}
	}
	return out
}

// tokenCounts says where the samples' per-chunk token counts came from.
func tokenCounts(samples []Sample) string {
	for _, s := range samples {
		if s.TokensEstimated {
			return "estimated"
		}
	}
	return "server"
}

// CountErrors lists the distinct failures among samples, most frequent
// first, at most a handful.
func CountErrors(samples []Sample) []ErrorCount {
	counts := map[string]int{}
	var order []string
	for _, s := range samples {
		if s.OK {
			continue
		}
		if counts[s.Err] == 0 {
			order = append(order, s.Err)
		}
		counts[s.Err]++
	}
	sort.SliceStable(order, func(i, j int) bool { return counts[order[i]] > counts[order[j]] })
	var out []ErrorCount
	for _, m := range order {
		if len(out) == maxErrors {
			break
		}
		out = append(out, ErrorCount{m, counts[m]})
	}
	return out
}
