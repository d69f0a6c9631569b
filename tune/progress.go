package tune

import (
	"fmt"
	"io"
	"sync"

	"github.com/sglaunch/sglaunch/health"
)

// progress writes one line per step of the search: a point's launch and
// each load phase, its rounds, its end; every line says the points done,
// failed and reused, and the time left by the measured points.
type progress struct {
	w   io.Writer
	rec *Record
	// eta estimates the time the pending points need; ok false before
	// any point was measured.
	eta func() (string, bool)
	mu  sync.Mutex
}

func (p *progress) line(pt *Point, what string) {
	if p.w == nil {
		return
	}
	done, failed, reused, left := 0, 0, 0, 0
	for _, q := range p.rec.Points {
		switch q.Status {
		case PointOK:
			done++
		case PointFailed:
			failed++
		case PointReused:
			reused++
		case PointPending, PointRunning:
			left++
		}
	}
	eta := "ETA unknown until a point is measured"
	if p.eta != nil {
		if s, ok := p.eta(); ok {
			eta = "ETA " + s
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "tune: point %d/%d [%s] %s | %d done, %d failed, %d reused, %d to go | %s\n",
		pt.N, len(p.rec.Points)-1, pt.Label(), what, done, failed, reused, left, eta)
}

func (p *progress) start(pt *Point) { p.line(pt, "launching") }

// follow prints the load's phases as the tracker sees them, until the
// returned function is called.
func (p *progress) follow(pt *Point, t *health.Tracker) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			ch := t.Changed()
			select {
			case <-done:
				return
			case <-ch:
				if ph, ok := t.Last(); ok {
					p.line(pt, "loading: "+ph.Name)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func (p *progress) round(pt *Point, n, of int) {
	p.line(pt, fmt.Sprintf("round %d/%d done", n, of))
}

func (p *progress) end(pt *Point) {
	what := pt.Status
	switch {
	case pt.Status == PointFailed:
		what = "failed: " + pt.Reason
	case pt.Objective != nil:
		what = fmt.Sprintf("%s %s = %.4g [%.4g, %.4g] over %d rounds", pt.Status, p.rec.Space.Objective.Metric, pt.Objective.Mean, pt.Objective.Lo, pt.Objective.Hi, pt.Objective.N)
		if pt.Raced != "" {
			what += "; " + pt.Raced
		}
	}
	p.line(pt, what)
}
