package launcher

import (
	"bufio"
	"fmt"
	"github.com/sglaunch/sglaunch/internal/tail"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// floodTimeout is generous: the flood takes well under a second when
// nothing blocks it.
const floodTimeout = 30 * time.Second

// TestRelayNeverBlocksOnASlowJournal pins what broke: the relay wrote to
// the journal in line, so a journal that did not keep up stopped the
// relay, filled the server's pipe and stalled the server. Now the server's
// flood is drained while the journal reads nothing; the lines the bounded
// queue could not hold are dropped, and counted in a line that says so.
func TestRelayNeverBlocksOnASlowJournal(t *testing.T) {
	// journald's stream is a socket, which the relay writes to in line
	// while it keeps up; a pipe (or a file) takes the queue alone.
	t.Run("socket", func(t *testing.T) {
		jr, jw := socketJournal(t)
		testSlowJournal(t, jr, jw)
	})
	t.Run("pipe", func(t *testing.T) {
		jr, jw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		testSlowJournal(t, jr, jw)
	})
}

// socketJournal is a stream socket as journald gives a service: jw the
// service's end, jr journald's.
func socketJournal(t *testing.T) (jr, jw *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "journald"), os.NewFile(uintptr(fds[1]), "journal")
}

// relayToJournal starts a relay of a new pipe's read end to jw, named the
// journal by JOURNAL_STREAM; w is the server's end.
func relayToJournal(t *testing.T, jw *os.File) (o *output, w *os.File) {
	t.Helper()
	fi, _ := jw.Stat()
	st := fi.Sys().(*syscall.Stat_t)
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	r, w, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	o = &output{tail: &tail.Buffer{}}
	o.relayLines(r, jw)
	return o, w
}

// testSlowJournal floods the relay while jw's far end, jr, reads nothing.
func testSlowJournal(t *testing.T, jr, jw *os.File) {
	defer jr.Close()
	o, w := relayToJournal(t, jw)

	const lines = 600_000 // 48 MB: three times the queue
	flooded := make(chan struct{})
	go func() {
		bw := bufio.NewWriterSize(w, 64<<10)
		for i := range lines {
			fmt.Fprintf(bw, "[2026-12-02 02:44:09 TP0] line %06d of the flood, padded to about fifty bytes\n", i)
		}
		bw.Flush()
		w.Close()
		close(flooded)
	}()
	select {
	case <-flooded:
	case <-time.After(floodTimeout):
		t.Fatal("the server's writes blocked behind a journal that does not read")
	}

	// The journal reads again: what it gets, and what it is told it lost,
	// add up to the flood.
	read := make(chan string)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(jr)
		for sc.Scan() {
			b.WriteString(sc.Text())
			b.WriteByte('\n')
		}
		read <- b.String()
	}()
	o.drain(floodTimeout)
	jw.Close()
	got := <-read
	floodLine := regexp.MustCompile(`^\[2026-12-02 02:44:09 TP0\] line `)
	kept, dropped := journalCount(t, strings.Split(strings.TrimSuffix(got, "\n"), "\n"), floodLine, nil)
	if dropped == 0 {
		t.Errorf("no line said how many were dropped (%d of %d kept)", kept, lines)
	}
	if kept+dropped != lines {
		t.Errorf("%d lines kept and %d said dropped, want %d in all", kept, dropped, lines)
	}
}

// droppedNotice is the line that tells the journal how many of the
// server's lines were dropped where it stands.
var droppedNotice = regexp.MustCompile(`^<4>sglaunch: (\d+) lines of the server's output were dropped here`)

// journalCount walks the lines the journal got: a dropped-lines notice
// adds its count to dropped; every other line must match line (the test
// fails at one cut, glued or not the server's), counts as kept, and is
// handed with its submatches to each (when set).
func journalCount(t *testing.T, got []string, line *regexp.Regexp, each func(m []string)) (kept, dropped int) {
	t.Helper()
	for _, l := range got {
		if m := droppedNotice.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			dropped += n
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("the journal got a line cut, glued or not the server's: %q", l)
		}
		if each != nil {
			each(m)
		}
		kept++
	}
	return kept, dropped
}

// slowSink collects what it is written, slowly: a journal that lags.
type slowSink struct{ got strings.Builder }

func (s *slowSink) Write(b []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.got.Write(b)
}

// TestJournalQueueHandNeverAliases: the buffer hand returns is the
// relay's to write its next block into; what it handed before reaches the
// journal unchanged, in order, whether the queue took the buffer itself
// (nothing waiting) or copied it (a batch waiting).
func TestJournalQueueHandNeverAliases(t *testing.T) {
	sink := &slowSink{}
	q := newJournalQueue(sink)
	var want strings.Builder
	var buf []byte
	for i := range 200 {
		buf = fmt.Appendf(buf[:0], "line %d\n", i)
		want.Write(buf)
		buf = q.hand(buf)
		if len(buf) != 0 {
			t.Fatalf("hand returned %d bytes, want an empty buffer", len(buf))
		}
		// The relay's next block overwrites whatever it was given.
		buf = append(buf, "XXXXXXXXXXXXXXXXXXXXXXXX"...)
		if i%7 == 0 {
			time.Sleep(2 * time.Millisecond) // the writer catches up
		}
	}
	q.close()
	if got := sink.got.String(); got != want.String() {
		t.Errorf("the journal got %d bytes that differ from the %d handed", len(got), want.Len())
	}
}
