package loadgen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// timeNow is the clock every timestamp comes from; tests replace it.
var timeNow = time.Now

// event is one server-sent event: the data lines joined by "\n", and the
// arrival time of the read that delivered its end.
type event struct {
	data []byte // valid until the next call to next
	at   time.Time
}

// eventReader splits a text/event-stream body into events. It reads only
// when the bytes it holds do not complete an event, so an event's stamp is
// the time its last byte arrived, never later than the next read.
//
// Its one buffer starts small and doubles only when an event does not fit
// (up to the bound): a chat stream's events are a few hundred bytes, and
// at thousands of open streams the buffers are most of the client's
// memory. An event of a single data line (SGLang's every event) is handed
// out from the buffer itself, without a copy.
type eventReader struct {
	r    io.Reader
	arr  arrivalReader // r, when it knows its data's arrival
	last time.Time     // when the data of the last read that returned some arrived
	err  error         // the reader's error, once it has returned one

	buf        []byte
	start, end int    // buf[start:end] is read and not yet consumed
	data       []byte // a multi-line event's data, joined
	max        int    // the largest event accepted
}

// eventBufStart is a new reader's buffer: one chat event, or a
// /generate event of a hundred tokens; a larger event doubles it.
const eventBufStart = 1 << 10

// errEventTooLarge: a line or an event passed the reader's bound. A
// hostile or broken server must not make the client hold what it sends.
var errEventTooLarge = errors.New("event too large")

// newEventReader reads events of at most max bytes (lines included).
func newEventReader(r io.Reader, max int) *eventReader {
	e := &eventReader{r: r, max: max}
	e.arr, _ = r.(arrivalReader)
	return e
}

// arrivalReader is a reader that knows when the data of its last read
// reached the machine (a kernel receive stamp), or returns zero.
type arrivalReader interface{ arrival() time.Time }

// next returns the next event with data, or io.EOF once the body has
// ended. An event cut off by the end of the body is still returned.
func (e *eventReader) next() (event, error) {
	for {
		raw, err := e.rawEvent()
		if err != nil {
			return event{}, err
		}
		if data, ok := e.join(raw); ok {
			return event{data: data, at: e.last}, nil
		}
	}
}

// rawEvent returns the next event's lines up to (not including) the
// blank line that ends it, consumed from the buffer; at the end of the
// body, what is left (io.EOF when nothing is).
func (e *eventReader) rawEvent() ([]byte, error) {
	scanned := 0 // bytes of buf[start:end] known to hold no event end
	for {
		held := e.buf[e.start:e.end]
		if n := eventEnd(held, scanned); n >= 0 {
			e.start += n
			return held[:n], nil
		}
		scanned = max(len(held)-1, 0) // an end may straddle the next read
		if e.err != nil {
			e.start = e.end
			if errors.Is(e.err, io.EOF) && len(held) > 0 {
				return held, nil
			}
			return nil, e.err
		}
		if len(held) > e.max {
			return nil, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, e.max)
		}
		if err := e.fill(); err != nil {
			return nil, err // errWouldBlock: the rest of the event is yet to come
		}
	}
}

// eventEnd returns the length of the event at the start of b, through
// its terminating blank line, or -1 when b holds none. from is where the
// search may start. Lines end in "\n" or "\r\n".
func eventEnd(b []byte, from int) int {
	for i := from; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		// A "\n" at the start, or after another line's end, is a blank
		// line; a leading blank line is an empty event, skipped by next.
		switch {
		case i == 1:
			return 1
		case i >= 2 && b[i-2] == '\n':
			return i
		case i == 2 && b[0] == '\r':
			return 2
		case i >= 3 && b[i-2] == '\r' && b[i-3] == '\n':
			return i
		}
	}
}

// fill reads once into the free end of the buffer, first moving what is
// held to the front, and doubling the buffer when that does not make
// room. It returns errWouldBlock, and keeps no error, when the read
// found no data yet; any other error is kept for rawEvent.
func (e *eventReader) fill() error {
	if e.start > 0 {
		e.end = copy(e.buf, e.buf[e.start:e.end])
		e.start = 0
	}
	if e.end == len(e.buf) {
		size := max(2*len(e.buf), eventBufStart)
		// One byte past the bound, so that an event over it is seen.
		size = min(size, e.max+2)
		if size <= len(e.buf) {
			size = len(e.buf) + 1
		}
		e.buf = append(make([]byte, 0, size), e.buf[:e.end]...)[:size]
	}
	n, err := e.r.Read(e.buf[e.end:])
	if n > 0 {
		e.last = timeNow()
		if e.arr != nil {
			if t := e.arr.arrival(); !t.IsZero() {
				e.last = t
			}
		}
		e.end += n
	}
	if err == errWouldBlock {
		return err
	}
	if err != nil {
		e.err = err
	}
	return nil
}

// join returns the data of the raw event: its data lines' values joined
// by "\n"; ok is false for an event without data (a comment, an id).
func (e *eventReader) join(raw []byte) (data []byte, ok bool) {
	lines := 0
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		// Comments (": ping") and fields other than data carry no payload.
		if string(field) != "data" {
			continue
		}
		switch lines {
		case 0:
			data = value
		case 1:
			e.data = append(append(append(e.data[:0], data...), '\n'), value...)
			data = e.data
		default:
			e.data = append(append(e.data, '\n'), value...)
			data = e.data
		}
		lines++
	}
	return data, lines > 0
}
