package loadgen

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/sglaunch/sglaunch/internal/tty"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool { return tty.Is(w) }

// Progress shows levels as they run: a bar redrawn in place on a
// terminal, a plain line every Interval otherwise, and one summary line
// per finished level either way.
type Progress struct {
	W        io.Writer
	TTY      bool
	Interval time.Duration // between plain lines; default 10s
	// Prefix starts every line, e.g. the workload's name.
	Prefix string

	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

// NewProgress returns a Progress writing to w, as a bar when w is a terminal.
func NewProgress(w io.Writer) *Progress {
	return &Progress{W: w, TTY: IsTerminal(w), Interval: 10 * time.Second}
}

// rateWindow is how far back the live token rate looks.
const rateWindow = 2 * time.Second

// LevelStart starts redrawing.
func (p *Progress) LevelStart(c *Counters) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	if c.Warning != "" {
		fmt.Fprintf(p.W, "%s%s: warning: %s\n", p.prefix(), c.Label, c.Warning)
	}
	every := p.Interval
	if every <= 0 {
		every = 10 * time.Second
	}
	if p.TTY {
		every = 250 * time.Millisecond
	}
	go p.loop(c, every, p.stop, p.done)
}

func (p *Progress) loop(c *Counters, every time.Duration, stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	type point struct {
		at     time.Time
		tokens int64
	}
	hist := []point{{c.Start, 0}}
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			tok := c.Tokens()
			hist = append(hist, point{now, tok})
			for len(hist) > 2 && now.Sub(hist[1].at) >= rateWindow {
				hist = hist[1:]
			}
			rate := 0.0
			if dt := now.Sub(hist[0].at).Seconds(); dt > 0 {
				rate = float64(tok-hist[0].tokens) / dt
			}
			p.draw(c, now, rate)
		}
	}
}

func (p *Progress) draw(c *Counters, now time.Time, rate float64) {
	elapsed := now.Sub(c.Start)
	done, failed := c.Done(), c.Failed()
	count := fmt.Sprintf("%d", done)
	frac := 0.0
	if c.Total > 0 {
		count = fmt.Sprintf("%d/%d", done, c.Total)
		frac = float64(done) / float64(c.Total)
	} else if c.Duration > 0 {
		frac = min(1, elapsed.Seconds()/c.Duration.Seconds())
	}
	fail := ""
	if failed > 0 {
		fail = fmt.Sprintf(", %d failed", failed)
	}
	if !p.TTY {
		fmt.Fprintf(p.W, "%s%s: %s requests%s, %.1f tok/s, %s elapsed\n", p.prefix(), c.Label, count, fail, rate, clock(elapsed))
		return
	}
	const width = 24
	n := int(frac * width)
	bar := strings.Repeat("#", n) + strings.Repeat("-", width-n)
	fmt.Fprintf(p.W, "\r\x1b[2K%s%s [%s] %s req%s  %.1f tok/s  %s", p.prefix(), c.Label, bar, count, fail, rate, clock(elapsed))
}

// LevelEnd stops redrawing and prints the level's summary line.
func (p *Progress) LevelEnd(c *Counters, r LevelResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	if p.TTY {
		fmt.Fprint(p.W, "\r\x1b[2K")
	}
	m := r.Metrics
	line := fmt.Sprintf("%s%s: %d ok", p.prefix(), c.Label, m.Completed)
	if m.ZeroTokenCompleted > 0 {
		line += fmt.Sprintf(" (%d of 0 tokens)", m.ZeroTokenCompleted)
	}
	if m.Failed > 0 {
		line += fmt.Sprintf(", %d failed", m.Failed)
	}
	line += fmt.Sprintf(" in %.1fs, %.1f tok/s out, median TTFT %.1f ms, median ITL %.2f ms", m.Duration, m.OutputThroughput, m.TTFT.Median, m.ITL.Median)
	if m.DecodeRate > 0 {
		line += fmt.Sprintf(", decode %.1f tok/s", m.DecodeRate)
	}
	fmt.Fprintln(p.W, line)
}

func (p *Progress) prefix() string {
	if p.Prefix == "" {
		return ""
	}
	return p.Prefix + " "
}

func clock(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
