package launcher

import (
	"bytes"
	"log/slog"
	"slices"

	"github.com/sglaunch/sglaunch/internal/logging"
	"github.com/sglaunch/sglaunch/internal/tail"
)

// Priority prefixes journald reads at the start of a line (sd-daemon(3)),
// as sglaunch's own lines carry them.
var (
	prioErr  = []byte(logging.Priority(slog.LevelError))
	prioWarn = []byte(logging.Priority(slog.LevelWarn))
	prioInfo = []byte(logging.Priority(slog.LevelInfo))
)

var (
	tracebackHead = []byte("Traceback (most recent call last):")
	// The lines between two chained tracebacks.
	chainedCause  = []byte("The above exception was the direct cause of the following exception:")
	chainedDuring = []byte("During handling of the above exception, another exception occurred:")
	// A block is scanned for these before its lines are searched for
	// the markers. bytes.Index costs a step at every match of its first
	// byte, so they start with bytes rare in SGLang's output ('T' of
	// "TP0" and 'a' are everywhere): a traceback's head holds the first,
	// both chained lines the second.
	tracebackAnchor = []byte("(most recent call last)")
	chainedAnchor   = []byte("xception")
	pyWarningToken  = []byte("Warning: ")
)

// journalLines rewrites one stream of the server's output for the
// journal, line by line: a priority prefix by the line's level (ERROR,
// CRITICAL and tracebacks <3>, WARNING <4>), colour escapes removed, and
// SGLang's own "[YYYY-mm-dd HH:MM:SS TPn]" stamp cut to "[TPn]", since
// journald stamps every line itself. It holds the state that spans
// lines (a traceback in progress, a line cut across two blocks), so each
// relay has its own. The relay uses it only when its destination is the
// journal: a terminal or a pipe gets the output untouched.
type journalLines struct {
	midLine   bool          // the last block ended inside a line
	traceback bool          // inside a Python traceback
	held      []byte        // an escape sequence the last block ended inside
	buf       []byte        // the block being rewritten, or the queue's spare
	scratch   []byte        // a line with its colours stripped
	queue     *journalQueue // where the relay hands the rewritten blocks
	// What the block being formatted holds anywhere: a line is searched
	// for a marker only when its block has one, so that a flood of
	// ordinary lines costs one scan per marker per block, not per line.
	hasEsc, hasTraceback, hasChained, hasWarning bool
	// stamp is the date and time of the last line appendLine found
	// stamped (stampOK): a flood's lines mostly share their second, and
	// those that start with it take plainLine's short way.
	stamp    [stampLen]byte
	stampOK  bool
	slowOnly bool // tests: every line through appendLine
}

// format returns b rewritten; the result is valid until the next call. A
// line cut across two blocks (a partial flush) is judged by its first
// part.
func (j *journalLines) format(b []byte) []byte {
	if len(j.held) > 0 {
		b = append(j.held, b...)
		j.held = nil
	}
	// Room for the block at once: a line gets at most a 3-byte prefix,
	// and SGLang's lines lose more than that to the cut stamp. Growing
	// inside the loop would copy the block again.
	out := slices.Grow(j.buf[:0], len(b)+len(b)/16+64)
	j.hasEsc = bytes.IndexByte(b, 0x1b) >= 0
	if !j.hasEsc {
		// Nothing to hold back, nor to strip.
	} else if i := unfinishedEscape(b); i >= 0 {
		j.held = append([]byte(nil), b[i:]...)
		b = b[:i]
	}
	j.hasTraceback = bytes.Contains(b, tracebackAnchor)
	j.hasChained = bytes.Contains(b, chainedAnchor)
	j.hasWarning = bytes.Contains(b, pyWarningToken)
	// Nothing in the block can raise a line's priority but a level word
	// at the start of its message: a line stamped as the last one was
	// takes the short way (plainLine).
	plain := !j.hasEsc && !j.hasTraceback && !j.hasChained && !j.hasWarning && !j.traceback && !j.slowOnly
	for len(b) > 0 {
		line := b
		nl := bytes.IndexByte(b, '\n')
		if nl >= 0 {
			line, b = b[:nl], b[nl+1:]
		} else {
			b = nil
		}
		switch {
		case j.midLine && j.hasEsc:
			out = tail.AppendStripped(out, line)
		case j.midLine:
			out = append(out, line...)
		case plain && j.stampOK && len(line) > stampLen && string(line[:stampLen]) == string(j.stamp[:]):
			if o, ok := plainLine(out, line); ok {
				out = o
				break
			}
			out = j.appendLine(out, line)
		default:
			out = j.appendLine(out, line)
		}
		j.midLine = nl < 0
		if nl >= 0 {
			out = append(out, '\n')
		}
	}
	j.buf = out
	return out
}

// appendLine appends one line (or the start of one) with its prefix, in
// place: nothing is allocated per line.
func (j *journalLines) appendLine(out, line []byte) []byte {
	var colour []byte
	if j.hasEsc && bytes.IndexByte(line, 0x1b) >= 0 {
		colour = colourPriority(line)
		j.scratch = tail.AppendStripped(j.scratch[:0], line)
		line = j.scratch
	}
	msg, rank, stamped := cutStamp(line)
	if j.stampOK = stamped; stamped {
		copy(j.stamp[:], line)
	}
	p := j.priority(line, msg, colour)
	text, head := line, false
	if stamped {
		text, head = msg, len(rank) > 0
	}
	if p == nil && !head && len(text) > 2 && text[0] == '<' && isDigit(text[1]) {
		// A line that looks like a prefix itself would be misread.
		p = prioInfo
	}
	out = append(out, p...)
	if head {
		out = append(append(append(out, '['), rank...), ']', ' ')
	}
	return append(out, text...)
}

// stampLen is the date and time of SGLang's stamp, "[2006-01-02 15:04:05".
const stampLen = 20

// plainLine appends line, whose first stampLen bytes are a stamp's date
// and time, as appendLine would in a block without escapes, tracebacks or
// warnings.warn lines: the stamp cut and no prefix. ok is false for a line
// appendLine must judge (a level word or a '<' may start its message, or
// the stamp goes on past the seconds).
func plainLine(out, line []byte) (_ []byte, ok bool) {
	rest := line[stampLen:]
	var rank, msg []byte
	switch rest[0] {
	case ']':
		msg = rest[1:]
	case ' ':
		end := bytes.IndexByte(rest, ']')
		if end < 0 {
			return out, false
		}
		rank, msg = bytes.TrimSpace(rest[:end]), rest[end+1:]
	default:
		return out, false
	}
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	if len(msg) > 0 {
		switch msg[0] {
		case 'E', 'C', 'F', 'W', '[', '<':
			return out, false
		}
	}
	if len(rank) > 0 {
		out = append(append(append(out, '['), rank...), ']', ' ')
	}
	return append(out, msg...), true
}

// priority decides a line's prefix; nil keeps journald's default (info).
// line is the whole line, msg what follows SGLang's stamp.
func (j *journalLines) priority(line, msg, colour []byte) []byte {
	switch {
	case j.hasTraceback && bytes.Contains(line, tracebackHead):
		j.traceback = true
		return prioErr
	case j.hasChained && (bytes.HasPrefix(line, chainedCause) || bytes.HasPrefix(line, chainedDuring)):
		j.traceback = false
		return prioErr
	case j.traceback:
		if len(line) == 0 {
			return nil
		}
		if line[0] != ' ' && line[0] != '\t' {
			j.traceback = false // the exception line ends it
		}
		return prioErr
	}
	if p := levelWord(msg); p != nil {
		return p
	}
	if colour != nil {
		return colour
	}
	if !j.hasWarning {
		return nil
	}
	if i := bytes.Index(msg, pyWarningToken); i > 0 && isLetter(msg[i-1]) {
		return prioWarn // warnings.warn: "file.py:12: UserWarning: ..."
	}
	return nil
}

// levelWord reads a level written at the start of a message: logging's
// "ERROR:name:..." and uvicorn's "ERROR:    ...", or torch's glog-style
// "[W1201 ...]"/"[E socket.cpp:...]".
func levelWord(msg []byte) []byte {
	if len(msg) == 0 {
		return nil
	}
	switch msg[0] {
	case 'E', 'C', 'F', 'W', '[':
	default:
		return nil
	}
	for _, w := range []struct {
		word string
		prio []byte
	}{{"ERROR", prioErr}, {"CRITICAL", prioErr}, {"FATAL", prioErr}, {"WARNING", prioWarn}, {"WARN", prioWarn}} {
		if bytes.HasPrefix(msg, []byte(w.word)) {
			if len(msg) == len(w.word) {
				return w.prio
			}
			switch msg[len(w.word)] {
			case ':', ' ', ']':
				return w.prio
			}
		}
	}
	if len(msg) > 2 && msg[0] == '[' && (msg[2] == ' ' || isDigit(msg[2])) {
		switch msg[1] {
		case 'E', 'F':
			return prioErr
		case 'W':
			return prioWarn
		}
	}
	return nil
}

// cutStamp splits SGLang's "[2026-06-01 12:00:00 TP0] msg" into msg and
// the rank part ("TP0", empty without one). stamped is false for any
// other line.
func cutStamp(line []byte) (msg, rank []byte, stamped bool) {
	const n = len("[2006-01-02 15:04:05")
	if len(line) < n+1 || line[0] != '[' {
		return line, nil, false
	}
	// The separators first: most lines that are not stamped fail there.
	if line[5] != '-' || line[8] != '-' || line[11] != ' ' || line[14] != ':' || line[17] != ':' {
		return line, nil, false
	}
	for _, i := range [...]int{1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19} {
		if !isDigit(line[i]) {
			return line, nil, false
		}
	}
	end := bytes.IndexByte(line[n:], ']')
	if end < 0 {
		return line, nil, false
	}
	rest := line[n : n+end]
	if len(rest) > 0 && (rest[0] == ',' || rest[0] == '.') { // fractions of a second
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		rest = rest[i:]
	}
	if len(rest) > 0 && rest[0] != ' ' {
		return line, nil, false
	}
	msg = line[n+end+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	return msg, bytes.TrimSpace(rest), true
}

// colourPriority maps a line's first SGR colour to a priority: red is an
// error, yellow a warning (SGLang prints its deprecation warnings in
// bold yellow, with no level word).
func colourPriority(line []byte) []byte {
	for i := 0; i+2 < len(line); i++ {
		if line[i] != 0x1b || line[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(line) && (isDigit(line[j]) || line[j] == ';') {
			j++
		}
		if j >= len(line) || line[j] != 'm' {
			continue
		}
		for _, p := range bytes.Split(line[i+2:j], []byte(";")) {
			switch string(p) {
			case "31", "91":
				return prioErr
			case "33", "93":
				return prioWarn
			}
		}
	}
	return nil
}

// unfinishedEscape is where an escape sequence that b ends inside
// starts, or -1.
func unfinishedEscape(b []byte) int {
	i := bytes.LastIndexByte(b, 0x1b)
	if i < 0 || bytes.IndexByte(b[i:], '\n') >= 0 {
		return -1
	}
	if len(tail.AppendStripped(nil, b[i:])) > 0 || i+1 < len(b) && b[i+1] != '[' && b[i+1] != ']' {
		return -1 // complete, with text after it, or a two-byte escape
	}
	seq := b[i+1:]
	switch {
	case len(seq) == 0:
		return i
	case seq[0] == '[':
		if last := seq[len(seq)-1]; len(seq) > 1 && last >= 0x40 && last <= 0x7e {
			return -1
		}
		return i
	default: // OSC
		if last := seq[len(seq)-1]; last == 0x07 || len(seq) > 1 && last == '\\' && seq[len(seq)-2] == 0x1b {
			return -1
		}
		return i
	}
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
