package tail

import "sync"

// DefaultMax is what a Buffer with no Max keeps.
const DefaultMax = 64 << 10

// Buffer keeps the last Max bytes written to it (DefaultMax when Max is
// 0). It is an io.Writer that never fails, safe for concurrent use; the
// zero value is ready.
type Buffer struct {
	Max int

	mu      sync.Mutex
	buf     []byte
	dropped int64 // bytes dropped from the front
}

func (t *Buffer) max() int {
	if t.Max > 0 {
		return t.Max
	}
	return DefaultMax
}

// Write keeps the end of p; it always accepts all of p.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	limit := t.max()
	if len(p) >= limit {
		t.dropped += int64(len(t.buf) + len(p) - limit)
		t.buf = append(t.buf[:0], p[len(p)-limit:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - limit; over > 0 {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// String is what the buffer holds, as written.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Dropped is how many bytes were dropped from the front.
func (t *Buffer) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// Lines returns the last n lines held (see the package doc for how a
// line is shown); the first line held is left out when bytes before it
// were dropped, since its start is gone.
func (t *Buffer) Lines(n int) []string {
	t.mu.Lock()
	data, cut := string(t.buf), t.dropped > 0
	t.mu.Unlock()
	return lastLines(data, n, cut)
}
