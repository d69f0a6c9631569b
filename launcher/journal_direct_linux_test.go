package launcher

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sglaunch/sglaunch/internal/logging"
)

// The relay writes in line only to a stream socket (journald's): what
// else JOURNAL_STREAM could name gets the queue alone.
func TestJournalDirectOnlyOnSockets(t *testing.T) {
	far, sock := socketJournal(t)
	defer far.Close()
	defer sock.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if newJournalDirect(sock) == nil {
		t.Error("a stream socket is not written in line")
	}
	if newJournalDirect(pw) != nil || newJournalDirect(f) != nil {
		t.Error("a pipe or a file is written in line: nothing keeps that write from blocking")
	}
}

// TestJournalStallsKeepOrder: a journal that stalls now and then (longer
// than journalPoll) moves the relay from writing in line to the queue and
// back, many times over. The journal gets the lines in the order written,
// none cut, and those dropped while it stalled are said: none lost
// without a word.
func TestJournalStallsKeepOrder(t *testing.T) {
	jr, jw := socketJournal(t)
	defer jr.Close()
	o, w := relayToJournal(t, jw)

	read := readStalling(jr, func(line string) bool {
		return strings.HasSuffix(line, "0000\n") && strings.Contains(line, "line ")
	}, 20*journalPoll)
	const lines = 400_000
	go func() {
		bw := bufio.NewWriterSize(w, 32<<10)
		for i := range lines {
			fmt.Fprintf(bw, "[2026-12-02 02:44:09 TP0] line %06d\n", i)
			if i%997 == 0 {
				fmt.Fprintf(bw, "[2026-12-02 02:44:09 TP0] WARNING: line %06d\n", i)
			}
			if i%10_000 == 5_000 {
				// A pause: the queue catches up, and the relay writes
				// in line again, until the journal's next stall.
				bw.Flush()
				time.Sleep(30 * time.Millisecond)
			}
		}
		bw.Flush()
		w.Close()
	}()
	o.drain(floodTimeout)
	jw.Close()
	got := <-read
	var q *journalQueue
	for _, q = range o.journals {
	}
	q.mu.Lock()
	takeovers := q.takeovers
	q.mu.Unlock()
	if takeovers == 0 {
		// About ten on an idle machine; one is enough to have tested
		// the way there and back.
		t.Error("the queue never took over from the in-line writes: the stalls tested nothing")
	}

	line := regexp.MustCompile(`^(<4>)?\[2026-12-02 02:44:09 TP0\] (WARNING: )?line (\d{6})\n$`)
	last, warnings := -1, 0
	kept, dropped := journalCount(t, got, line, func(m []string) {
		if (m[1] != "") != (m[2] != "") {
			t.Fatalf("a line with the wrong priority: %q", m[0])
		}
		n, _ := strconv.Atoi(m[3])
		if m[2] != "" {
			warnings++
			if n < last {
				t.Fatalf("line %d came after line %d", n, last)
			}
		} else if n <= last {
			t.Fatalf("line %d came after line %d", n, last)
		}
		last = n
	})
	want := lines + (lines+996)/997
	if kept+dropped != want {
		t.Errorf("%d lines kept and %d said dropped, want %d in all", kept, dropped, want)
	}
	t.Logf("%d lines kept (%d warnings), %d dropped and said; the queue took over %d times", kept, warnings, dropped, takeovers)
	if strings.Count(strings.Join(got, ""), "\n") != len(got) {
		t.Error("a line without its newline")
	}
}

// TestTwoStreamsOneJournal: the server's stdout and stderr reach one
// journal stream (as systemd connects them). Their relays share one queue
// and take turns writing in line, so that, through the journal's stalls,
// neither lands a block inside a line of the other: every line arrives
// whole, each stream's in order, and what was dropped is said.
func TestTwoStreamsOneJournal(t *testing.T) {
	jr, jw := socketJournal(t)
	defer jr.Close()
	jw2 := dupFile(t, jw)
	o, w := relayToJournal(t, jw)
	r2, w2, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	o.relayLines(r2, jw2)
	if len(o.journals) != 1 {
		t.Fatalf("%d journal queues for one stream, want 1", len(o.journals))
	}

	read := readStalling(jr, func(line string) bool { return strings.HasSuffix(line, "000\n") }, 5*journalPoll)
	const lines = 200_000
	flood := func(w *os.File, name string) {
		bw := bufio.NewWriterSize(w, 48<<10)
		for i := range lines {
			fmt.Fprintf(bw, "[2026-12-02 02:44:09 TP0] %s line %06d, padded to about sixty bytes\n", name, i)
		}
		bw.Flush()
		w.Close()
	}
	go flood(w, "out")
	go flood(w2, "err")
	o.drain(floodTimeout)
	jw.Close()
	jw2.Close()
	got := <-read

	line := regexp.MustCompile(`^\[2026-12-02 02:44:09 TP0\] (out|err) line (\d{6}), padded to about sixty bytes\n$`)
	last := map[string]int{"out": -1, "err": -1}
	kept, dropped := journalCount(t, got, line, func(m []string) {
		n, _ := strconv.Atoi(m[2])
		if n <= last[m[1]] {
			t.Fatalf("%s line %d came after its line %d", m[1], n, last[m[1]])
		}
		last[m[1]] = n
	})
	if kept+dropped != 2*lines {
		t.Errorf("%d lines kept and %d said dropped, want %d in all", kept, dropped, 2*lines)
	}
	t.Logf("%d lines kept, %d dropped and said", kept, dropped)
}

// readStalling reads the journal's end of the stream a line at a time,
// as journald would, pausing for pause after each line busy says is one
// to stall at (journald busy elsewhere). It sends every line read once
// the stream ends.
func readStalling(jr *os.File, busy func(line string) bool, pause time.Duration) <-chan []string {
	read := make(chan []string, 1)
	go func() {
		var got []string
		br := bufio.NewReaderSize(jr, 64<<10)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				got = append(got, line)
			}
			if err != nil {
				break
			}
			if busy(line) {
				time.Sleep(pause)
			}
		}
		read <- got
	}()
	return read
}

// dupFile is a second descriptor of f's file, as stdout and stderr are
// two descriptors of one journal stream.
func dupFile(t *testing.T, f *os.File) *os.File {
	t.Helper()
	var fd int
	var err error
	rc, _ := f.SyscallConn()
	if cerr := rc.Control(func(s uintptr) { fd, err = unix.Dup(int(s)) }); cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// TestOwnLinesNeverInsideServerLines: sglaunch's own lines to the journal
// stream the relay writes to go through the relay's queue while it runs
// (logging.RouteJournal), in order with the server's lines. Written to
// the stream directly, one landed inside a server line the journal had
// taken only part of. None is dropped, however full the queue.
func TestOwnLinesNeverInsideServerLines(t *testing.T) {
	jr, jw := socketJournal(t)
	defer jr.Close()
	o, w := relayToJournal(t, jw)
	log, err := logging.New(jw, logging.Text)
	if err != nil {
		t.Fatal(err)
	}

	read := readStalling(jr, func(line string) bool {
		return strings.HasSuffix(line, "000, padded to about sixty bytes\n")
	}, 5*journalPoll)
	const lines, own = 200_000, 300
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for i := range own {
			log.Info("own line", "n", i)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	bw := bufio.NewWriterSize(w, 48<<10)
	for i := range lines {
		fmt.Fprintf(bw, "[2026-12-02 02:44:09 TP0] line %06d, padded to about sixty bytes\n", i)
	}
	bw.Flush()
	<-logged
	w.Close()
	o.drain(floodTimeout)
	jw.Close()
	got := <-read

	server := regexp.MustCompile(`^\[2026-12-02 02:44:09 TP0\] line \d{6}, padded to about sixty bytes\n$`)
	mine := regexp.MustCompile(`^<6>sglaunch: own line n=(\d+)\n$`)
	next := 0
	for _, l := range got {
		if m := mine.FindStringSubmatch(l); m != nil {
			if n, _ := strconv.Atoi(m[1]); n != next {
				t.Fatalf("own line %d came where %d was due", n, next)
			}
			next++
			continue
		}
		if !server.MatchString(l) && !droppedNotice.MatchString(l) {
			t.Fatalf("the journal got a line cut or glued: %q", l)
		}
	}
	if next != own {
		t.Errorf("%d of sglaunch's %d own lines reached the journal", next, own)
	}
}
