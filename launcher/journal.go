package launcher

import (
	"bytes"
	"log/slog"

	"github.com/sglaunch/sglaunch/internal/byteset"
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
	midLine   bool   // the last block ended inside a line
	traceback bool   // inside a Python traceback
	held      []byte // an escape sequence the last block ended inside
	buf       []byte // the block being rewritten, or the queue's spare
	scratch   []byte // a line with its colours stripped
	// scratchSegs is format's list of a plain chunk's runs and prefixes;
	// segs the list the relay writes to the journal directly.
	scratchSegs, segs [][]byte
	queue             *journalQueue // where the relay writes or hands the rewritten blocks
	// What the block being formatted holds anywhere: a line is searched
	// for a marker only when its block has one, so that a flood of
	// ordinary lines costs one scan per marker per block, not per line.
	hasEsc, hasTraceback, hasChained, hasWarning bool
	slowOnly                                     bool // tests: every line through appendLine
	byLineOnly                                   bool // tests: plainChunk without plainBySet
}

// journalChunk is how much of a block format and segments search at a
// time, cut at a newline: the markers' searches and the lines' then run
// over bytes still in the CPU's cache, not over a whole block read back
// from memory once per search.
const journalChunk = 32 << 10

// chunkEnd is where the chunk of b that starts at lo ends: after the last
// newline within journalChunk, or after the first one beyond it.
func chunkEnd(b []byte, lo int) int {
	hi := lo + journalChunk
	if hi >= len(b) {
		return len(b)
	}
	if nl := bytes.LastIndexByte(b[lo:hi], '\n'); nl >= 0 {
		return lo + nl + 1
	}
	if nl := bytes.IndexByte(b[hi:], '\n'); nl >= 0 {
		return hi + nl + 1
	}
	return len(b)
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
	for lo := 0; lo < len(b); {
		hi := chunkEnd(b, lo)
		out = j.formatChunk(out, b[lo:hi])
		lo = hi
	}
	j.buf = out
	return out
}

// formatChunk appends b (whole lines, but for a last one cut short)
// rewritten.
func (j *journalLines) formatChunk(out, b []byte) []byte {
	if segs, run, ok := j.plainChunk(j.scratchSegs[:0], b, 0, len(b), 0); ok {
		// Nothing in the chunk can raise a line's priority but a level
		// word at the start of its message: its lines are copied in
		// runs between the prefixes.
		for _, s := range segs {
			out = append(out, s...)
		}
		clear(segs)
		j.scratchSegs = segs[:0]
		return append(out, b[run:]...)
	}
	if bytes.IndexByte(b, 0x1b) < 0 {
		j.hasEsc = false // nothing to hold back, nor to strip
	} else if i := unfinishedEscape(b); i >= 0 {
		j.hasEsc = true
		j.held = append([]byte(nil), b[i:]...)
		b = b[:i]
	} else {
		j.hasEsc = true
	}
	j.hasTraceback = bytes.Contains(b, tracebackAnchor)
	j.hasChained = bytes.Contains(b, chainedAnchor)
	j.hasWarning = bytes.Contains(b, pyWarningToken)
	return j.formatLines(out, b)
}

// segments appends b rewritten for the journal to segs, without copying
// it: as slices of b between the priority prefixes. It applies when every
// line of b takes the plain path and nothing is held over from the last
// block; otherwise ok is false and nothing has changed.
func (j *journalLines) segments(segs [][]byte, b []byte) (_ [][]byte, ok bool) {
	if len(j.held) > 0 {
		return segs, false
	}
	n0, midLine := len(segs), j.midLine
	run := 0
	for lo := 0; lo < len(b); {
		hi := chunkEnd(b, lo)
		if segs, run, ok = j.plainChunk(segs, b, lo, hi, run); !ok {
			clear(segs[n0:])
			j.midLine = midLine
			return segs[:n0], false
		}
		lo = hi
	}
	if run < len(b) {
		segs = append(segs, b[run:])
	}
	return segs, true
}

// plainChunk is the plain path over b[lo:hi], a chunk (whole lines but
// for a last one cut short): when nothing in it would take a line off the
// plain path (an escape, a traceback, the lines between chained ones, a
// warnings.warn line, a traceback in progress), it appends to segs the
// run of b from run up to each line whose message starts with a level
// word (or that looks like a prefix itself), then that line's prefix, as
// appendLine would prefix it, and returns where the run not yet appended
// starts. ok is false, with nothing changed, otherwise.
func (j *journalLines) plainChunk(segs [][]byte, b []byte, lo, hi, run int) (_ [][]byte, _ int, ok bool) {
	if j.traceback || j.slowOnly {
		return segs, run, false
	}
	if byteset.Fast && !j.byLineOnly {
		out, end, res := j.plainBySet(segs, b, lo, hi, run)
		switch res {
		case plainDone:
			return out, end, true
		case plainNot:
			return segs, run, false
		}
		// plainTooMany: line by line.
	}
	chunk := b[lo:hi]
	if bytes.IndexByte(chunk, 0x1b) >= 0 || bytes.Contains(chunk, tracebackAnchor) ||
		bytes.Contains(chunk, chainedAnchor) || bytes.Contains(chunk, pyWarningToken) {
		return segs, run, false
	}
	segs, run = j.plainRuns(segs, b, lo, hi, run)
	return segs, run, true
}

// plainSet holds the bytes plainBySet stops at: an escape, the anchors'
// first bytes (tracebackAnchor, chainedAnchor, pyWarningToken) and the
// bytes everything that gives a line of a plain chunk its prefix starts
// with: a level word's first letter (ERROR, CRITICAL, FATAL, WARN), the
// letter of a glog-style "[W1201", a '<' that looks like a prefix.
// SGLang's decode, prefill and access lines hold few of them, and none
// where a message starts.
var plainSet = byteset.MustNew(0x1b, tracebackAnchor[0], chainedAnchor[0], pyWarningToken[0], 'E', 'C', 'F', '<')

const (
	plainDone    = iota // the chunk is plain: its runs are appended
	plainNot            // the chunk is not plain
	plainTooMany        // too many stops to be worth it: search line by line
)

// plainBySet is plainChunk in one pass over the chunk (byteset), which
// stops only at plainSet's bytes, instead of four searches and one per
// line: a marker makes the chunk not plain; a level byte where a message
// could start has its line judged (plainPriority), once. It gives up on
// a chunk with more stops than one per 32 bytes, which would cost more
// than its lines.
func (j *journalLines) plainBySet(segs [][]byte, b []byte, lo, hi, run int) (_ [][]byte, _ int, res int) {
	first := lo // the first line judged starts here
	if j.midLine {
		first = hi
		if nl := bytes.IndexByte(b[lo:hi], '\n'); nl >= 0 {
			first = lo + nl + 1
		}
	}
	n0, run0 := len(segs), run
	undo := func(res int) ([][]byte, int, int) {
		clear(segs[n0:])
		return segs[:n0], run0, res
	}
	judged := first // the lines before it have been judged
	stops := (hi-lo)/32 + 16
	for x := lo; x < hi; x++ {
		k := plainSet.Index(b[x:hi])
		if k < 0 {
			break
		}
		x += k
		if stops--; stops < 0 {
			return undo(plainTooMany)
		}
		switch b[x] {
		case 0x1b:
			return undo(plainNot)
		case tracebackAnchor[0]:
			if bytes.HasPrefix(b[x:hi], tracebackAnchor) {
				return undo(plainNot)
			}
			continue
		case chainedAnchor[0]:
			if bytes.HasPrefix(b[x:hi], chainedAnchor) {
				return undo(plainNot)
			}
			continue
		case pyWarningToken[0]:
			if bytes.HasPrefix(b[x:hi], pyWarningToken) {
				return undo(plainNot)
			}
		}
		if x < judged {
			continue // in a line judged already, or the last block's
		}
		if x > first {
			switch b[x-1] {
			case '\n', '[', ']', ' ':
			default:
				continue // inside a word: no message starts there
			}
		}
		start := judged + bytes.LastIndexByte(b[judged:x], '\n') + 1
		end := hi
		if nl := bytes.IndexByte(b[x:hi], '\n'); nl >= 0 {
			end = x + nl
		}
		segs, run = prefixLine(segs, b, run, start, end)
		judged = end + 1
	}
	if first < hi {
		j.midLine = b[hi-1] != '\n'
	}
	return segs, run, plainDone
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

// plainRuns is the plain path over the lines of b that start in
// b[lo:hi], a stretch without escapes, tracebacks or warnings.warn lines:
// it appends to segs the run of b from run up to each line whose message
// starts with a level word (or that looks like a prefix itself), then
// that line's prefix, as appendLine would prefix it. It returns where the
// run not yet appended starts.
func (j *journalLines) plainRuns(segs [][]byte, b []byte, lo, hi, run int) ([][]byte, int) {
	i := lo
	if j.midLine {
		nl := bytes.IndexByte(b[lo:hi], '\n')
		if nl < 0 {
			return segs, run
		}
		i, j.midLine = lo+nl+1, false
	}
	for i < hi {
		end := hi
		if nl := bytes.IndexByte(b[i:hi], '\n'); nl >= 0 {
			end = i + nl
		} else {
			j.midLine = true
		}
		segs, run = prefixLine(segs, b, run, i, end)
		i = end + 1
	}
	return segs, run
}

// prefixLine judges the line b[start:end] of a plain stretch: when it
// gets a prefix, the run of b from run up to the line and the prefix are
// appended to segs, and the next run starts at the line.
func prefixLine(segs [][]byte, b []byte, run, start, end int) ([][]byte, int) {
	p := plainPriority(b[start:end])
	if p == nil {
		return segs, run
	}
	if start > run {
		segs = append(segs, b[run:start])
	}
	return append(segs, p), start
}

// plainPriority is a line's prefix in a plain stretch (plainChunk): by a
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
