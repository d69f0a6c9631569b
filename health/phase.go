package health

import (
	"bytes"
	"sort"
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
// the per-rank lines (with its "[time TPn]" prefix, none at tp 1); a step
// that ends ("loaded", "captured") takes the time of its last rank and of
// its last repetition, a step that begins the time of its first.
type marker struct {
	text []byte
	name string
	last bool
}

// readyAnchor and readyMarker find SGLang's ready line once the port is
// bound, when it is the only marker left to look for.
var (
	readyAnchor = []byte("fired up and ready to roll")
	readyMarker = marker{[]byte(ReadyLine), PhaseWarmupDone, false}
)

// captureAnchor starts every CUDA (or NPU, CPU...) graph capture line of
// every SGLang release:
//
//	v0.5.10 and older  "Capture cuda graph begin. This can take up to several minutes. ..."
//	                   "Capture cuda graph end. Time elapsed: ..."
//	                   "Capture piecewise CUDA graph begin. ..." / "... end. Time elapsed: ..."
//	                   "Capture draft cuda graph begin. ...", "Capture draft extend cuda graph begin. ..."
//	v0.5.15 (PR #28937) and later, per capture set
//	                   "Capture target prefill CUDA graph begin. backend=..., num_tokens=[...]"
//	                   "Capture target decode CUDA graph begin. backend=..., num_tokens_per_req=1, bs=[...]"
//	                   ("target verify" under speculative decoding; "num_tokens_per_bs" in v0.5.15)
//	                   "Capture draft decode CUDA graph begin. ...", "Capture draft extend CUDA graph begin. ..."
//	                   "Capture <set> CUDA graph end. elapsed=..."
//
// The first begin of any set starts the capture phase; the last end of any
// set, on any rank, ends it. "Capture cuda graph bs [...]" (v0.5.10) is
// neither.
var captureAnchor = []byte("Capture ")

// captureMarkers returns the offsets in b of the first capture begin and
// of the first capture end, or -1.
func captureMarkers(b []byte) (begin, end int) {
	begin, end = -1, -1
	for off := 0; ; {
		i := bytes.Index(b[off:], captureAnchor)
		if i < 0 {
			return begin, end
		}
		at := off + i
		rest := b[at:]
		line := rest[len(captureAnchor):]
		if j := bytes.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		// The verb closes the capture's name: "... graph begin." or
		// "... graph end.", within the first words of the line.
		if len(line) > 120 {
			line = line[:120]
		}
		switch {
		case begin < 0 && (bytes.Contains(line, []byte(" begin.")) || bytes.HasSuffix(line, []byte(" begin"))):
			begin = at
		case end < 0 && (bytes.Contains(line, []byte(" end.")) || bytes.HasSuffix(line, []byte(" end"))):
			end = at
		}
		off = at + len(captureAnchor)
	}
}

// Tracker follows the server's output during the load: the phases seen,
// when the last output came, and whether the ready line has appeared. It
// is safe for concurrent use: the output relays call Observe while the
// gate reads.
type Tracker struct {
	start      time.Time
	lastOutput atomic.Int64 // unix nanoseconds
	done       atomic.Bool  // the load is over: only the output time is kept
	// served is set once the port is bound: SGLang starts its HTTP
	// server after its schedulers are ready (weights, KV cache, graphs),
	// so only the ready line is left to look for, and a flood of request
	// logs then costs one pass per block, not seven.
	served atomic.Bool

	mu      sync.Mutex
	phases  []Phase
	index   map[string]int
	current Phase // what the load is doing now: see Last
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
	if t.served.Load() {
		if bytes.Contains(b, readyAnchor) {
			if i := bytes.Index(b, readyMarker.text); i >= 0 {
				t.mu.Lock()
				t.record(readyMarker, now.Sub(t.start))
				t.mu.Unlock()
			}
		}
		return
	}
	// A block is a run of lines read together, so every line in it has
	// the same time: what matters is which markers occur, in log order.
	type hit struct {
		m   marker
		pos int
	}
	var hits []hit
	if bytes.Contains(b, captureAnchor) {
		begin, end := captureMarkers(b)
		if begin >= 0 {
			hits = append(hits, hit{marker{name: PhaseCapturingGraphs}, begin})
		}
		if end >= 0 {
			hits = append(hits, hit{marker{name: PhaseGraphsCaptured, last: true}, end})
		}
	}
	for _, g := range markerGroups() {
		if !bytes.Contains(b, g.anchor) {
			continue
		}
		for _, m := range g.markers {
			if i := bytes.Index(b, m.text); i >= 0 {
				hits = append(hits, hit{m, i})
			}
		}
	}
	if len(hits) == 0 {
		return
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	at := now.Sub(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range hits {
		t.record(h.m, at)
	}
}

func (t *Tracker) record(m marker, at time.Duration) {
	if i, ok := t.index[m.name]; ok {
		if m.last {
			t.phases[i].At = at
		}
		// SGLang captures several graph sets one after another (prefill,
		// decode or verify, the draft's; v0.5.10: decode, then piecewise):
		// a set that begins after one has ended is capturing again, and
		// its end is the end of the captures so far.
		switch {
		case m.name == PhaseCapturingGraphs && t.current.Name == PhaseGraphsCaptured:
			t.setCurrent(Phase{Name: PhaseCapturingGraphs, At: at})
		case m.name == PhaseGraphsCaptured && t.current.Name == PhaseCapturingGraphs:
			t.setCurrent(Phase{Name: PhaseGraphsCaptured, At: at})
		}
		return
	}
	t.index[m.name] = len(t.phases)
	t.phases = append(t.phases, Phase{Name: m.name, At: at})
	t.setCurrent(Phase{Name: m.name, At: at})
	switch m.name {
	case PhasePortBound:
		t.served.Store(true)
	case PhaseWarmupDone:
		t.readyAt = at
		close(t.ready)
		// The last phase: nothing is left to look for.
		t.done.Store(true)
	}
}

func (t *Tracker) setCurrent(p Phase) {
	t.current = p
	close(t.changed)
	t.changed = make(chan struct{})
}

// Finish stops phase detection; Observe then only notes the output time.
func (t *Tracker) Finish() { t.done.Store(true) }

// Phases returns the phases seen so far in the order they happened: by
// time, a step that ends at its last rank's (or last repetition's) end.
// The order of first appearance is not that: under
// --startup-weight-load-mode overlap the weights' end comes after the
// captures, and with post-capture KV sizing the KV cache's too.
func (t *Tracker) Phases() []Phase {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]Phase(nil), t.phases...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// Last returns what the load is doing now: the most recent new phase,
// or "capturing CUDA graphs" again while a later graph set is captured
// after an earlier one ended, with the time it began.
func (t *Tracker) Last() (Phase, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.phases) == 0 {
		return Phase{}, false
	}
	return t.current, true
}

// Changed is closed when what Last returns changes after the call.
func (t *Tracker) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// ReadySeen is closed when the server has logged ReadyLine.
func (t *Tracker) ReadySeen() <-chan struct{} { return t.ready }

// LastOutput is when the server last wrote anything.
func (t *Tracker) LastOutput() time.Time { return time.Unix(0, t.lastOutput.Load()) }
