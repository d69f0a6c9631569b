package launcher

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sglaunch/sglaunch/internal/byteset"
	"github.com/sglaunch/sglaunch/internal/tail"
)

// TestJournalLines pins B5's level half: the server's lines reached the
// journal at priority 6 whatever they said, tracebacks included, with
// colour escapes stored. SGLang's own stamps stay, so that a line reads
// the same in the journal as in the log file.
func TestJournalLines(t *testing.T) {
	in := strings.Join([]string{
		"[2026-06-01 12:00:00 TP0] Load weight begin. avail mem=78.00 GB",
		"[2026-06-01 12:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "sglang/srt/managers/scheduler.py", line 2390, in run_scheduler_process`,
		"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)",
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		"Possible solutions:",
		"",
		"[2026-06-01 12:00:02] INFO:     Started server process [42]",
		"[2026-06-01 12:00:02] ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
		"WARNING:root:something odd",
		"CRITICAL: out of luck",
		"\x1b[1;33mThe command line argument '--cuda-graph-max-bs' is deprecated.\x1b[0m",
		"\x1b[31mred alert\x1b[0m",
		"/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.",
		"[W1201 12:00:03.000000000 ProcessGroupNCCL.cpp:4561] Warning: no NCCL_ASYNC_ERROR_HANDLING",
		"<5>not a priority of ours",
		"Traceback (most recent call last):",
		`  File "x.py", line 1, in <module>`,
		"ValueError: first",
		"",
		"During handling of the above exception, another exception occurred:",
		"",
		"Traceback (most recent call last):",
		`  File "x.py", line 3, in <module>`,
		"KeyError: 'second'",
		"[2026-06-01 12:00:04 TP1] Decode batch, #running-req: 1",
		"",
	}, "\n")
	want := strings.Join([]string{
		"[2026-06-01 12:00:00 TP0] Load weight begin. avail mem=78.00 GB",
		"<3>[2026-06-01 12:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):",
		`<3>  File "sglang/srt/managers/scheduler.py", line 2390, in run_scheduler_process`,
		"<3>    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank)",
		"<3>RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		"Possible solutions:",
		"",
		"[2026-06-01 12:00:02] INFO:     Started server process [42]",
		"<3>[2026-06-01 12:00:02] ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 30000): address already in use",
		"<4>WARNING:root:something odd",
		"<3>CRITICAL: out of luck",
		"<4>The command line argument '--cuda-graph-max-bs' is deprecated.",
		"<3>red alert",
		"<4>/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.",
		"<4>[W1201 12:00:03.000000000 ProcessGroupNCCL.cpp:4561] Warning: no NCCL_ASYNC_ERROR_HANDLING",
		"<6><5>not a priority of ours",
		"<3>Traceback (most recent call last):",
		`<3>  File "x.py", line 1, in <module>`,
		"<3>ValueError: first",
		"",
		"<3>During handling of the above exception, another exception occurred:",
		"",
		"<3>Traceback (most recent call last):",
		`<3>  File "x.py", line 3, in <module>`,
		"<3>KeyError: 'second'",
		"[2026-06-01 12:00:04 TP1] Decode batch, #running-req: 1",
		"",
	}, "\n")
	var j journalLines
	if got := string(j.format([]byte(in))); got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("line %d: got %q, want %q", i+1, g, w)
			}
		}
	}
}

// A line cut across two blocks (a partial flush) gets one prefix, at its
// start, decided by its first part, and the traceback state carries over
// from block to block.
func TestJournalLinesAcrossBlocks(t *testing.T) {
	var j journalLines
	var got strings.Builder
	for _, b := range []string{"Traceback (most recent call last):\n  File \"x\x1b[0", "m.py\"\nOSError: gone\nok\n"} {
		got.Write(j.format([]byte(b)))
	}
	want := "<3>Traceback (most recent call last):\n<3>  File \"x.py\"\n<3>OSError: gone\nok\n"
	if got.String() != want {
		t.Errorf("got %q, want %q", got.String(), want)
	}
}

// The relay rewrites only for the journal: the stream JOURNAL_STREAM
// names. Any other destination gets the bytes as written.
func TestRelayToJournal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	st := fi.Sys().(*syscall.Stat_t)
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	r, w, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	other := &writes{}
	r2, w2, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &output{tail: &tail.Buffer{}}
	o.relayLines(r, f)
	o.relayLines(r2, other)
	line := "[2026-06-01 12:00:00] ERROR:    boom\n"
	// A partial line is not relayed early to the journal, where another
	// stream's line would be glued to it.
	w.Write([]byte(line[:10]))
	time.Sleep(3 * partialFlush)
	if b, _ := os.ReadFile(f.Name()); len(b) > 0 {
		t.Errorf("partial line relayed to the journal before its newline: %q", b)
	}
	w.Write([]byte(line[10:]))
	w2.Write([]byte(line))
	w.Close()
	w2.Close()
	o.drain(time.Minute)
	b, _ := os.ReadFile(f.Name())
	if got, want := string(b), "<3>"+line; got != want {
		t.Errorf("journal: got %q, want %q", got, want)
	}
	if got := strings.Join(other.get(), ""); got != line {
		t.Errorf("not the journal: got %q, want %q", got, line)
	}
	if got := o.tail.Lines(1); len(got) != 1 || got[0]+"\n" != line {
		t.Errorf("tail: got %q, want the line as written", got)
	}
}

// TestJournalPlainLinesAsAppendLine: the short way a block without
// escapes, tracebacks or warnings.warn lines takes (plainChunk) gives
// what appendLine gives, line for line, whatever the block holds around
// them.
func TestJournalPlainLinesAsAppendLine(t *testing.T) {
	lines := []string{
		"[2026-12-02 02:44:09 TP0] Decode batch. #running-req: 12, #token: 3456\n",
		"[2026-12-02 02:44:09 TP1] Prefill batch. #new-seq: 1\n",
		"[2026-12-02 02:44:09] INFO:     127.0.0.1:54321 - \"POST /generate HTTP/1.1\" 200 OK\n",
		"[2026-12-02 02:44:09 TP0] WARNING: the KV cache is nearly full\n",
		"[2026-12-02 02:44:09 TP0] ERROR: out of memory\n",
		"[2026-12-02 02:44:09] <3>looks like a prefix\n",
		"[2026-12-02 02:44:09 TP0] <3>looks like a prefix, after a rank\n",
		"[2026-12-02 02:44:09,123 TP0] with fractions\n",
		"[2026-12-02 02:44:09 TP0]no space\n",
		"[2026-12-02 02:44:09 TP0 no bracket\n",
		"[2026-12-02 02:44:09]\n",
		"[2026-12-02 02:44:09 TP0] [W1202 socket.cpp] glog warning\n",
		"[2026-12-02 02:44:10 TP0] the next second\n",
		"plain text, no stamp\n",
		"[2026-12-02 02:44:10 TP0] CRITICAL: gone\n",
		"[2026-12-02 02:44:10 TP0] Fatal-looking but not a level\n",
		"<4>unstamped, looks like a prefix\n",
		"WARNING: unstamped\n",
		"[E1202 socket.cpp] unstamped glog error\n",
		"\n",
	}
	blocks := []string{strings.Join(lines, ""), strings.Join(lines[:5], ""), "[2026-12-02 02:44:09 TP0] cut acr", "oss blocks\n" + strings.Join(lines[5:], "")}
	fast, slow := &journalLines{}, &journalLines{slowOnly: true}
	for i, b := range blocks {
		got, want := string(fast.format([]byte(b))), string(slow.format([]byte(b)))
		if got != want {
			t.Errorf("block %d: got\n%s\nwant\n%s", i, got, want)
		}
	}
}

// TestJournalPathsAgree: the one-pass search (plainBySet), the search
// line by line (plainRuns) and appendLine alone give the same journal,
// written whole (format) or as runs of the block (segments), for random
// blocks of SGLang's lines, level words, glog lines, lines that look like
// prefixes, words that start like levels, escapes, tracebacks and
// warnings.warn lines, cut anywhere.
func TestJournalPathsAgree(t *testing.T) {
	pieces := []string{
		"[2026-12-02 02:44:09 TP0] Decode batch. #running-req: 12, #token: 3456, gen throughput (token/s): 1234.56\n",
		"[2026-12-02 02:44:09] INFO:     127.0.0.1:54321 - \"POST /generate HTTP/1.1\" 200 OK\n",
		"[2026-12-02 02:44:09 TP0] WARNING: the KV cache is nearly full\n",
		"[2026-12-02 02:44:09 TP1] ERROR: out of memory\n",
		"[2026-12-02 02:44:09 TP0] CRITICAL gone\n",
		"[2026-12-02 02:44:09 TP0] FATAL:x\n",
		"[2026-12-02 02:44:09 TP0]ERROR glued\n",
		"[2026-12-02 02:44:09,123 TP0] WARN] odd\n",
		"[2026-12-02 02:44:09 TP0] [W1202 socket.cpp] glog\n",
		"[E1202 socket.cpp:12] unstamped glog\n",
		"[F1202 x] fatal glog\n",
		"ERROR: unstamped\n",
		"WARNING:root:unstamped\n",
		"<4>looks like a prefix\n",
		"<x not one\n",
		"[2026-12-02 02:44:09] <3>after a stamp\n",
		"Errors are words, not levels; Cache, Flush, Warn-ish\n",
		"a line with E C F W < in it [E [W ] E\n",
		"[2026-12-02 02:44:09 TP0] Fatal-looking but not a level\n",
		"EOF\n",
		"W\n",
		"\n",
		"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n",
		"\nThe above exception was the direct cause of the following exception:\n\n",
		"x.py:3: UserWarning: deprecated\n",
		"\x1b[33mWARNING coloured\x1b[0m\n",
		"[2026-12-02 02:44:09 TP0] mxWEC<F exception-free letters\n",
	}
	// The pieces before it take the plain path; a block holding one of
	// the rest does not.
	plain := slices.IndexFunc(pieces, func(p string) bool { return strings.HasPrefix(p, "Traceback") })
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 400 {
		pool := pieces
		if round%4 != 0 {
			pool = pieces[:plain]
		}
		var in strings.Builder
		for in.Len() < 1+r.IntN(120<<10) {
			in.WriteString(pool[r.IntN(len(pool))])
		}
		text := []byte(in.String())
		// Cut into blocks at random places, as reads and partial flushes
		// cut the server's output.
		var blocks [][]byte
		for rest := text; len(rest) > 0; {
			n := min(len(rest), 1+r.IntN(40<<10))
			if i := bytes.Index(rest[n-1:], []byte("] ")); r.IntN(2) == 0 && i >= 0 {
				n += i + 1 // where a message starts: a line cut there
			}
			blocks = append(blocks, rest[:n])
			rest = rest[n:]
		}
		slow := &journalLines{slowOnly: true}
		bySet, byLine := &journalLines{}, &journalLines{byLineOnly: true}
		runsSet, runsLine := &journalLines{}, &journalLines{byLineOnly: true}
		var want, gotSet, gotLine, gotRunsSet, gotRunsLine strings.Builder
		for _, b := range blocks {
			want.Write(slow.format(b))
			gotSet.Write(bySet.format(b))
			gotLine.Write(byLine.format(b))
			for _, jr := range []struct {
				j   *journalLines
				out *strings.Builder
			}{{runsSet, &gotRunsSet}, {runsLine, &gotRunsLine}} {
				if segs, ok := jr.j.segments(nil, b); ok {
					for _, s := range segs {
						jr.out.Write(s)
					}
				} else {
					jr.out.Write(jr.j.format(b))
				}
			}
		}
		for name, got := range map[string]string{
			"format, one pass": gotSet.String(), "format, line by line": gotLine.String(),
			"segments, one pass": gotRunsSet.String(), "segments, line by line": gotRunsLine.String(),
		} {
			if got != want.String() {
				t.Fatalf("round %d, %s: differs from appendLine's at byte %d\ngot  %q\nwant %q", round, name,
					firstDiff(got, want.String()), around(got, firstDiff(got, want.String())), around(want.String(), firstDiff(got, want.String())))
			}
		}
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(s string, i int) string {
	return s[max(0, i-80):min(len(s), i+80)]
}

// TestPlainBySetGivesUpOnHostileChunks: a chunk made of the bytes the
// one-pass search stops at costs it no more than a stop per 32 bytes
// before it hands the chunk to the line-by-line search, which gives the
// same journal.
func TestPlainBySetGivesUpOnHostileChunks(t *testing.T) {
	if !byteset.Fast {
		t.Skip("no one-pass search on this machine")
	}
	b := []byte(strings.Repeat("E F C <", 4096) + "\n")
	j := &journalLines{}
	if _, _, res := j.plainBySet(nil, b, 0, len(b), 0); res != plainTooMany {
		t.Fatalf("plainBySet on %d bytes of stops: result %d, want plainTooMany", len(b), res)
	}
	got, want := string((&journalLines{}).format(b)), string((&journalLines{slowOnly: true}).format(b))
	if got != want {
		t.Errorf("format differs from appendLine's: %q vs %q", around(got, 0), around(want, 0))
	}
}
