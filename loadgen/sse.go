package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"
)

// timeNow is the clock every timestamp comes from; tests replace it.
var timeNow = time.Now

// stampReader remembers when the last read that returned data came back:
// the arrival time of whatever that read completed.
type stampReader struct {
	r    io.Reader
	last time.Time
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.last = timeNow()
	}
	return n, err
}

// event is one server-sent event: the data lines joined by "\n", and the
// arrival time of the read that delivered its end.
type event struct {
	data []byte // valid until the next call to next
	at   time.Time
}

// eventReader splits a text/event-stream body into events. It reads only
// when the bytes it holds do not complete an event, so an event's stamp is
// the time its last byte arrived, never later than the next read.
type eventReader struct {
	sr   stampReader
	br   *bufio.Reader
	data []byte
	long []byte // a line longer than the buffer, being assembled
	max  int    // the largest line and event accepted
}

// errEventTooLarge: a line or an event passed the reader's bound. A
// hostile or broken server must not make the client hold what it sends.
var errEventTooLarge = errors.New("event too large")

// newEventReader reads events of at most max bytes (lines included).
func newEventReader(r io.Reader, max int) *eventReader {
	e := &eventReader{sr: stampReader{r: r}, max: max}
	e.br = bufio.NewReaderSize(&e.sr, 32<<10)
	return e
}

// next returns the next event with data, or io.EOF once the body has
// ended. An event cut off by the end of the body is still returned.
func (e *eventReader) next() (event, error) {
	e.data = e.data[:0]
	have := false
	for {
		line, err := e.line()
		if err != nil {
			if errors.Is(err, io.EOF) && have {
				return event{data: e.data, at: e.sr.last}, nil
			}
			return event{}, err
		}
		if len(line) == 0 {
			if have {
				return event{data: e.data, at: e.sr.last}, nil
			}
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		// Comments (": ping") and fields other than data carry no payload.
		if string(field) != "data" {
			continue
		}
		if len(e.data)+1+len(value) > e.max {
			return event{}, fmt.Errorf("%w: more than %d bytes", errEventTooLarge, e.max)
		}
		if have {
			e.data = append(e.data, '\n')
		}
		e.data = append(e.data, value...)
		have = true
	}
}

// line returns the next line without its terminator. A final line
// without a terminator is returned before io.EOF.
func (e *eventReader) line() ([]byte, error) {
	line, err := e.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		e.long = append(e.long[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(e.long) > e.max {
				return nil, fmt.Errorf("%w: a line of more than %d bytes", errEventTooLarge, e.max)
			}
			line, err = e.br.ReadSlice('\n')
			e.long = append(e.long, line...)
		}
		line = e.long
	}
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}
