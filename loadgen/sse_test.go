package loadgen

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func useClock(t *testing.T, c *fakeClock) {
	t.Helper()
	old := timeNow
	timeNow = c.Now
	t.Cleanup(func() { timeNow = old })
}

// pieceReader returns the pieces in turn, never two in one Read, moving
// the clock a millisecond as each begins: piece i arrives at base + (i+1)
// ms (a piece larger than the caller's buffer takes several Reads).
type pieceReader struct {
	pieces  []string
	clock   *fakeClock
	started bool
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.pieces) == 0 {
		return 0, io.EOF
	}
	if !r.started {
		r.clock.now = r.clock.now.Add(time.Millisecond)
		r.started = true
	}
	n := copy(p, r.pieces[0])
	r.pieces[0] = r.pieces[0][n:]
	if r.pieces[0] == "" {
		r.pieces, r.started = r.pieces[1:], false
	}
	return n, nil
}

func TestEventReader(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return base.Add(time.Duration(n) * time.Millisecond) }
	type ev struct {
		data string
		at   time.Time
	}
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name   string
		pieces []string
		want   []ev
	}{
		{"one event", []string{"data: {\"a\":1}\n\n"}, []ev{{`{"a":1}`, ms(1)}}},
		{"two events in one read share its time", []string{"data: a\n\ndata: b\n\n"}, []ev{{"a", ms(1)}, {"b", ms(1)}}},
		{"an event completes at the read that ends it", []string{"data: a", "bc\n", "\n"}, []ev{{"abc", ms(3)}}},
		{"the next event is stamped by its own read", []string{"data: a\n\ndata: b", "\n\n"}, []ev{{"a", ms(1)}, {"b", ms(2)}}},
		{"data lines join with newlines", []string{"data: a\ndata: b\n\n"}, []ev{{"a\nb", ms(1)}}},
		{"comments and other fields are skipped", []string{": ping\n\nevent: x\nid: 3\ndata: a\n\n"}, []ev{{"a", ms(1)}}},
		{"CRLF line ends", []string{"data: a\r\n\r\ndata: b\r\n\r\n"}, []ev{{"a", ms(1)}, {"b", ms(1)}}},
		{"no space after the colon", []string{"data:a\n\n"}, []ev{{"a", ms(1)}}},
		{"an event cut off at the end still counts", []string{"data: a\n\ndata: [DONE]"}, []ev{{"a", ms(1)}, {"[DONE]", ms(1)}}},
		{"a line longer than the buffer", []string{"data: " + long[:50000], long[50000:] + "\n\n"}, []ev{{long, ms(2)}}},
		{"blank lines between events", []string{"\n\n\ndata: a\n\n\n\n"}, []ev{{"a", ms(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: base}
			useClock(t, clock)
			er := newEventReader(&pieceReader{pieces: append([]string(nil), tt.pieces...), clock: clock}, eventCap)
			var got []ev
			for {
				e, err := er.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("next: %v", err)
				}
				got = append(got, ev{string(e.data), e.at})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d events %v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i].data != tt.want[i].data {
					t.Errorf("event %d: got data %.40q, want %.40q", i, got[i].data, tt.want[i].data)
				}
				if !got[i].at.Equal(tt.want[i].at) {
					t.Errorf("event %d: got stamp %v, want %v", i, got[i].at.Sub(base), tt.want[i].at.Sub(base))
				}
			}
		})
	}
}

func TestEventReaderError(t *testing.T) {
	boom := errors.New("boom")
	er := newEventReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), &errReader{boom}), eventCap)
	if _, err := er.next(); err != nil {
		t.Fatalf("first event: %v", err)
	}
	if _, err := er.next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the reader's error", err)
	}
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }
