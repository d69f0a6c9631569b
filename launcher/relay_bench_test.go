package launcher

import (
	"bytes"
	"fmt"
	"github.com/sglaunch/sglaunch/internal/tail"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// The relay's throughput and CPU, journal against plain against cat(1),
// in one run:
//
//	go test ./launcher -run '^$' -bench RelayVsCat -benchtime 21x
//
// A writer goroutine floods a pipe with SGLang-like log lines (what the
// server would write); the pipe is drained three ways in every
// iteration: by `cat > /dev/null`, then by the relay to a socket (plain)
// and by the relay to the same kind of socket named by JOURNAL_STREAM
// (the journal: priorities), these two first by turns. A goroutine reads
// the socket, as journald would. Rates are the input bytes delivered over wall time
// (the journal's counted as the share of its formatted output that
// arrived: lines its bounded queue dropped while the reader lagged do
// not count, and journal-dropped-% says how many); CPU is this
// process's (less the writer's, measured in cat's turn) plus cat's own.

// floodLines is a mix of what SGLang prints under load: decode batches
// with its stamp, uvicorn's access lines, and now and then a warning.
var floodLines = []string{
	"[2026-12-02 02:44:09 TP0] Decode batch. #running-req: 12, #token: 3456, token usage: 0.02, cuda graph: True, gen throughput (token/s): 1234.56, #queue-req: 0\n",
	"[2026-12-02 02:44:09 TP1] Decode batch. #running-req: 12, #token: 3456, token usage: 0.02, cuda graph: True, gen throughput (token/s): 1234.56, #queue-req: 0\n",
	"[2026-12-02 02:44:09] INFO:     127.0.0.1:54321 - \"POST /generate HTTP/1.1\" 200 OK\n",
	"[2026-12-02 02:44:09 TP0] Prefill batch. #new-seq: 1, #new-token: 1024, #cached-token: 0, token usage: 0.01, #running-req: 11, #queue-req: 0\n",
}

func floodBlock() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 64<<10-256; i++ {
		b.WriteString(floodLines[i%len(floodLines)])
		if i%97 == 0 {
			b.WriteString("[2026-12-02 02:44:09 TP0] WARNING: the KV cache is nearly full\n")
		}
	}
	return b.Bytes()
}

const floodBytes = 256 << 20

// flood writes floodBytes of lines (whole blocks: floodTotal) to w and
// closes it.
func flood(w *os.File, block []byte) {
	for n := 0; n < floodBytes; n += len(block) {
		if _, err := w.Write(block); err != nil {
			break
		}
	}
	w.Close()
}

func floodTotal(block []byte) int64 {
	n := (floodBytes + len(block) - 1) / len(block)
	return int64(n * len(block))
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// socketSink is a stream socket whose far end a goroutine drains, as
// journald drains a service's stream; delay is slept per read (a slow
// journal).
func socketSink(b *testing.B, delay time.Duration) (*os.File, func() int64) {
	b.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	near, far := os.NewFile(uintptr(fds[0]), "journal"), os.NewFile(uintptr(fds[1]), "journald")
	got := make(chan int64, 1)
	go func() {
		buf := make([]byte, 256<<10)
		var n int64
		for {
			k, err := far.Read(buf)
			n += int64(k)
			if err != nil {
				break
			}
			if delay > 0 {
				time.Sleep(delay)
			}
		}
		far.Close()
		got <- n
	}()
	return near, func() int64 { near.Close(); return <-got }
}

// relayOnce relays one flood to dst; it returns the wall and CPU time.
func relayOnce(b *testing.B, dst *os.File, block []byte) (wall, cpu time.Duration) {
	b.Helper()
	r, w, err := pipe()
	if err != nil {
		b.Fatal(err)
	}
	o := &output{tail: &tail.Buffer{}}
	c0, t0 := selfCPU(), time.Now()
	o.relayLines(r, dst)
	flood(w, block)
	o.drain(time.Minute)
	return time.Since(t0), selfCPU() - c0
}

func BenchmarkRelayVsCat(b *testing.B) {
	block := floodBlock()
	var catRate, plainRate, journalRate, journalDropped, catCPU, plainCPU, journalCPU []float64
	gib := float64(floodBytes) / (1 << 30)
	for b.Loop() {
		// cat: the writer's CPU here is what the relays' turns subtract.
		r, w, err := pipe()
		if err != nil {
			b.Fatal(err)
		}
		cat := exec.Command("cat")
		cat.Stdin = r
		c0, t0 := selfCPU(), time.Now()
		if err := cat.Start(); err != nil {
			b.Fatal(err)
		}
		r.Close()
		flood(w, block)
		_ = cat.Wait()
		wall, writer := time.Since(t0), selfCPU()-c0
		catRate = append(catRate, gib/wall.Seconds())
		catCPU = append(catCPU, (cat.ProcessState.UserTime()+cat.ProcessState.SystemTime()).Seconds()/gib)

		plain := func() {
			b.Setenv("JOURNAL_STREAM", "")
			dst, done := socketSink(b, 0)
			wall, cpu := relayOnce(b, dst, block)
			if n := done(); n != floodTotal(block) {
				b.Fatalf("plain relay delivered %d of %d bytes", n, floodTotal(block))
			}
			plainRate = append(plainRate, gib/wall.Seconds())
			plainCPU = append(plainCPU, (cpu-writer).Seconds()/gib)
		}
		journal := func() {
			dst, done := socketSink(b, 0)
			fi, _ := dst.Stat()
			st := fi.Sys().(*syscall.Stat_t)
			b.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
			wall, cpu := relayOnce(b, dst, block)
			// What the journal queue had to drop is missing: the rate
			// counts what arrived.
			got := done()
			want := floodTotal(block) / int64(len(block)) * int64(len((&journalLines{}).format(block)))
			journalDropped = append(journalDropped, 100*(1-float64(got)/float64(want)))
			journalRate = append(journalRate, gib*float64(got)/float64(want)/wall.Seconds())
			journalCPU = append(journalCPU, (cpu-writer).Seconds()/gib)
		}
		// The two relays take turns going first: whichever runs second
		// in a pair would otherwise pay for the first one's garbage.
		if len(plainRate)%2 == 0 {
			plain()
			journal()
		} else {
			journal()
			plain()
		}
	}
	med := func(v []float64) float64 { s := slices.Clone(v); slices.Sort(s); return s[len(s)/2] }
	b.ReportMetric(med(catRate), "cat-GiB/s")
	b.ReportMetric(med(plainRate), "plain-GiB/s")
	b.ReportMetric(med(journalRate), "journal-GiB/s")
	b.ReportMetric(med(journalRate)/med(plainRate), "journal/plain")
	b.ReportMetric(med(journalRate)/med(catRate), "journal/cat")
	b.ReportMetric(med(plainRate)/med(catRate), "plain/cat")
	b.ReportMetric(med(catCPU), "cat-cpu-s/GiB")
	b.ReportMetric(med(plainCPU), "plain-cpu-s/GiB")
	b.ReportMetric(med(journalCPU), "journal-cpu-s/GiB")
	b.ReportMetric(med(journalDropped), "journal-dropped-%")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkJournalFormat is the journal's rewrite alone, per 64 KiB block
// of SGLang-like lines.
func BenchmarkJournalFormat(b *testing.B) {
	block := floodBlock()
	j := &journalLines{}
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		j.format(block)
	}
}
