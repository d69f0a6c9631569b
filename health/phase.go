package health

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// timeNow is the clock; tests replace it.
var timeNow = time.Now

// Phase is a start-up step seen in the server's output, with the time
// since the server started.
type Phase struct {
	Name string
	At   time.Duration
}

// Phase names, in SGLang's start-up order.
const (
	PhaseLoadingWeights  = "loading weights"
	PhaseWeightsLoaded   = "weights loaded"
	PhaseKVCache         = "KV cache allocated"
	PhaseCapturingGraphs = "capturing CUDA graphs"
	PhaseGraphsCaptured  = "CUDA graphs captured"
	PhasePortBound       = "port bound"
	PhaseWarmupDone      = "warm-up done"
)

// ReadyLine is what SGLang logs once the warm-up request has returned.
const ReadyLine = "The server is fired up and ready to roll!"

// marker maps one of SGLang's log lines to a phase. Every TP rank logs
// the per-rank lines; a step that ends ("loaded", "captured") takes the
// time of its last rank, a step that begins the time of its first.
type marker struct {
	text []byte
	name string
	last bool
}

// markerGroups share a prefix, searched for first. During a log flood a
// block of output is mostly decode lines: one fast pass per anchor, with
// anchors that start with bytes such lines rarely hold, keeps the tracker
// far cheaper than the copy through the pipe.
var markerGroups = []struct {
	anchor  []byte
	markers []marker
}{
	{[]byte("Load weight "), []marker{
		{[]byte("Load weight begin"), PhaseLoadingWeights, false},
		{[]byte("Load weight end"), PhaseWeightsLoaded, true},
	}},
	{[]byte("KV Cache is allocated"), []marker{{[]byte("KV Cache is allocated"), PhaseKVCache, true}}},
	{[]byte("Capture cuda graph "), []marker{
		{[]byte("Capture cuda graph begin"), PhaseCapturingGraphs, false},
		{[]byte("Capture cuda graph end"), PhaseGraphsCaptured, true},
	}},
	{[]byte("Uvicorn running on"), []marker{{[]byte("Uvicorn running on"), PhasePortBound, false}}},
	{[]byte("fired up and ready to roll"), []marker{{[]byte(ReadyLine), PhaseWarmupDone, false}}},
}

// Tracker follows the server's output during the load: the phases seen,
// when the last output came, and whether the ready line has appeared. It
// is safe for concurrent use: the output relays call Observe while the
// gate reads.
type Tracker struct {
	start      time.Time
	lastOutput atomic.Int64 // unix nanoseconds
	done       atomic.Bool  // the load is over: only the output time is kept

	mu      sync.Mutex
	phases  []Phase
	index   map[string]int
	ready   chan struct{}
	readyAt time.Duration
	changed chan struct{} // closed and replaced on every new phase
}

// NewTracker starts tracking a server that started at start.
func NewTracker(start time.Time) *Tracker {
	t := &Tracker{start: start, index: map[string]int{}, ready: make(chan struct{}), changed: make(chan struct{})}
	t.lastOutput.Store(start.UnixNano())
	return t
}

// Start is when the server started.
func (t *Tracker) Start() time.Time { return t.start }

// Observe takes a block of the server's output: whole lines, or a partial
// line that has waited long enough. Any output counts as progress.
func (t *Tracker) Observe(b []byte) {
	if len(b) == 0 {
		return
	}
	now := timeNow()
	t.lastOutput.Store(now.UnixNano())
	if t.done.Load() {
		return
	}
	// A block is a run of lines read together, so every line in it has
	// the same time anyway: whether a marker occurs is all that matters.
	var hits []marker
	for _, g := range markerGroups {
		if !bytes.Contains(b, g.anchor) {
			continue
		}
		for _, m := range g.markers {
			if bytes.Contains(b, m.text) {
				hits = append(hits, m)
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	at := now.Sub(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range hits {
		t.record(m, at)
	}
}

func (t *Tracker) record(m marker, at time.Duration) {
	if i, ok := t.index[m.name]; ok {
		if m.last {
			t.phases[i].At = at
		}
		return
	}
	t.index[m.name] = len(t.phases)
	t.phases = append(t.phases, Phase{Name: m.name, At: at})
	close(t.changed)
	t.changed = make(chan struct{})
	if m.name == PhaseWarmupDone {
		t.readyAt = at
		close(t.ready)
	}
}

// Finish stops phase detection; Observe then only notes the output time.
func (t *Tracker) Finish() { t.done.Store(true) }

// Phases returns the phases seen so far, in the order they first appeared.
func (t *Tracker) Phases() []Phase {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Phase(nil), t.phases...)
}

// Last returns the most recent new phase.
func (t *Tracker) Last() (Phase, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.phases) == 0 {
		return Phase{}, false
	}
	return t.phases[len(t.phases)-1], true
}

// Changed is closed when a new phase appears after the call.
func (t *Tracker) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// ReadySeen is closed when the server has logged ReadyLine.
func (t *Tracker) ReadySeen() <-chan struct{} { return t.ready }

// LastOutput is when the server last wrote anything.
func (t *Tracker) LastOutput() time.Time { return time.Unix(0, t.lastOutput.Load()) }
