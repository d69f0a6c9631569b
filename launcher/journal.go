package launcher

import (
	"bytes"
	"log/slog"

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
	// byte, so they start with bytes absent from SGLang's decode,
	// prefill and access lines ('T' of "TP0", 'a' and the '(' of
	// "(token/s)" are in every one): a traceback's head holds the first,
	// both chained lines the second.
	tracebackAnchor = []byte("most recent call last)")
	chainedAnchor   = []byte("xception")
	pyWarningToken  = []byte("Warning: ")
)

// journalLines rewrites one stream of the server's output for the
// journal, line by line: a priority prefix by the line's level (ERROR,
// CRITICAL and tracebacks <3>, WARNING <4>) and colour escapes removed.
// The rest of each line is kept as the server wrote it, SGLang's own
// "[YYYY-mm-dd HH:MM:SS TPn]" stamp included, so that a line reads the
// same in journalctl as in the log file, and a block of ordinary lines
// is copied whole (the common case costs a search per line, not a
// rewrite). It holds the state that spans lines (a traceback in
// progress, a line cut across two blocks), so each relay has its own.
// The relay uses it only when its destination is the journal: a
// terminal or a pipe gets the output untouched.
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
	slowOnly                                     bool // tests: every line through appendLine
}

// format returns b rewritten; the result is valid until the next call. A
// line cut across two blocks (a partial flush) is judged by its first
// part.
func (j *journalLines) format(b []byte) []byte {
	if len(j.held) > 0 {
		b = append(j.held, b...)
		j.held = nil
	}
	// Room for the block and a few prefixes at once: growing inside the
	// loop would copy the block again. A new buffer is made as large as
	// any block the relay reads, so that every buffer the queue hands
	// back fits the next block: a fresh (zeroed) buffer per block cost a
	// tenth of the journal's CPU.
	need := len(b) + len(b)/64 + 64
	out := j.buf[:0]
	if cap(out) < need {
		out = make([]byte, 0, max(need, journalBlockCap))
	}
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
	// at the start of its message: its lines take the short way.
	if !j.hasEsc && !j.hasTraceback && !j.hasChained && !j.hasWarning && !j.traceback && !j.slowOnly {
		out = j.formatPlain(out, b)
	} else {
		out = j.formatLines(out, b)
	}
	j.buf = out
	return out
}

// formatLines rewrites b line by line (appendLine).
func (j *journalLines) formatLines(out, b []byte) []byte {
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
		default:
			out = j.appendLine(out, line)
		}
		j.midLine = nl < 0
		if nl >= 0 {
			out = append(out, '\n')
		}
	}
	return out
}

// formatPlain appends b, a block without escapes, tracebacks or
// warnings.warn lines, as formatLines would: the lines are copied in
// runs, and only a line whose message starts with a level word (or one
// that looks like a prefix itself) breaks a run for its prefix.
func (j *journalLines) formatPlain(out, b []byte) []byte {
	i := 0
	if j.midLine {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return append(out, b...)
		}
		i, j.midLine = nl+1, false
	}
	run := 0 // the start of the run not yet copied
	for i < len(b) {
		end := len(b)
		if nl := bytes.IndexByte(b[i:], '\n'); nl >= 0 {
			end = i + nl
		} else {
			j.midLine = true
		}
		if p := plainPriority(b[i:end]); p != nil {
			out = append(append(out, b[run:i]...), p...)
			run = i
		}
		i = end + 1
	}
	return append(out, b[run:]...)
}

// plainPriority is a line's prefix in a block formatPlain takes: by a
// level word at the start of its message, or prioInfo for an unstamped
// line that looks like a prefix itself; nil for the rest.
func plainPriority(line []byte) []byte {
	if len(line) == 0 {
		return nil
	}
	switch line[0] {
	case '[':
	case 'E', 'C', 'F', 'W':
		return levelWord(line)
	case '<':
		if len(line) > 2 && isDigit(line[1]) {
			return prioInfo
		}
		return nil
	default:
		return nil
	}
	if len(line) > 2 && (line[1] == 'E' || line[1] == 'F' || line[1] == 'W') {
		return levelWord(line) // torch's glog-style "[W1201 ...]"
	}
	// A stamp's message follows its first ']': only a message that may
	// start with a level word is worth checking the stamp for.
	k := bytes.IndexByte(line, ']')
	if k < 0 || k+2 >= len(line) {
		return nil
	}
	switch line[k+2] {
	case 'E', 'C', 'F', 'W', '[':
	default:
		if line[k+1] != ' ' {
			break // "]msg": cutStamp takes no space
		}
		return nil
	}
	if msg, stamped := cutStamp(line); stamped {
		return levelWord(msg)
	}
	return nil
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
	msg, stamped := cutStamp(line)
	p := j.priority(line, msg, colour)
	if p == nil && !stamped && len(line) > 2 && line[0] == '<' && isDigit(line[1]) {
		// A line that looks like a prefix itself would be misread.
		p = prioInfo
	}
	return append(append(out, p...), line...)
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

// cutStamp finds the message in SGLang's "[2026-06-01 12:00:00 TP0] msg";
// stamped is false for any other line.
func cutStamp(line []byte) (msg []byte, stamped bool) {
	const n = len("[2006-01-02 15:04:05")
	if len(line) < n+1 || line[0] != '[' {
		return line, false
	}
	// The separators first: most lines that are not stamped fail there.
	if line[5] != '-' || line[8] != '-' || line[11] != ' ' || line[14] != ':' || line[17] != ':' {
		return line, false
	}
	for _, i := range [...]int{1, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19} {
		if !isDigit(line[i]) {
			return line, false
		}
	}
	end := bytes.IndexByte(line[n:], ']')
	if end < 0 {
		return line, false
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
		return line, false
	}
	msg = line[n+end+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	return msg, true
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
