package hostprobe

import (
	"context"
	"sync"
)

// Memo remembers answers for one sglaunch command, so that preflight and
// bench, asking the same question, start one child between them. The
// zero value is ready to use; a nil *Memo remembers nothing (every call
// asks afresh). It is safe for concurrent use: a second asker waits for
// the first one's answer.
//
// An answer cut short by the asker's own context is not kept, since it
// says nothing about the host; a child's timeout is kept, since a hung
// nvidia-smi would hang again.
type Memo struct {
	mu      sync.Mutex
	answers map[string]*answer
}

type answer struct {
	ready chan struct{}
	val   any
	kept  bool
}

// remember returns the answer to the question key, asking it when no
// answer is kept.
func remember[T any](ctx context.Context, m *Memo, key string, ask func() T) T {
	if m == nil {
		return ask()
	}
	for {
		m.mu.Lock()
		if m.answers == nil {
			m.answers = map[string]*answer{}
		}
		a, found := m.answers[key]
		if !found {
			a = &answer{ready: make(chan struct{})}
			m.answers[key] = a
		}
		m.mu.Unlock()
		if !found {
			v := ask()
			a.val, a.kept = v, ctx.Err() == nil
			if !a.kept {
				m.mu.Lock()
				delete(m.answers, key)
				m.mu.Unlock()
			}
			close(a.ready)
			return v
		}
		select {
		case <-a.ready:
			if a.kept {
				return a.val.(T)
			}
			// The first asker was cut short: ask again.
		case <-ctx.Done():
			// Asking with an ended context fails at once, as it should.
			return ask()
		}
	}
}
