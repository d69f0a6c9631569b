package status

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sglaunch/sglaunch/health"
)

// RenderAll writes each launch as Render does, a blank line between
// two, as `sglaunch status` lists them.
func RenderAll(w io.Writer, snaps []*Snapshot) error {
	for i, s := range snaps {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := Render(w, s); err != nil {
			return err
		}
	}
	return nil
}

// Render writes a launch's facts for an operator at a terminal, one per
// line, as `sglaunch status` prints them.
func Render(w io.Writer, s *Snapshot) error {
	var b strings.Builder
	line := func(key, format string, a ...any) { fmt.Fprintf(&b, "  %-13s %s\n", key, fmt.Sprintf(format, a...)) }
	head := fmt.Sprintf("%s (%s)  fingerprint %s", s.Profile, s.Mode, short(s.Fingerprint))
	if s.SGLangVersion != "" {
		head += "  sglang " + s.SGLangVersion
	}
	b.WriteString(head + "\n")
	phase := s.Phase
	if s.Why != "" {
		phase = s.Why // names the phase, and why it is not ready
	}
	line("phase", "%s", phase)
	server := "not started"
	if s.PIDs.Server > 0 {
		server = fmt.Sprintf("pid %d", s.PIDs.Server)
	}
	line("server", "%s at %s (sglaunch pid %d)", server, s.URL, s.PIDs.Sglaunch)
	if s.StatusURL != "" {
		line("status", "%s (/livez /readyz /status /metrics)", s.StatusURL)
	}
	if !s.Load.StartedAt.IsZero() {
		started := stamp(s.Load.StartedAt)
		if s.ElapsedS > 0 {
			started += fmt.Sprintf(" (%s ago)", ago(s.ElapsedS))
		}
		line("started", "%s", started)
	}
	if !s.Load.ReadyAt.IsZero() {
		line("ready", "%s, loaded in %s%s", stamp(s.Load.ReadyAt), health.Secs(s.Load.Duration()), phases(s.Load.Phases))
	} else if len(s.Load.Phases) > 0 {
		line("phases", "%s", strings.TrimSuffix(strings.TrimPrefix(phases(s.Load.Phases), " ("), ")"))
	}
	if e := s.ETA; e != nil {
		if e.Known {
			line("eta", "%s left (median of %d earlier loads: %.1fs)", ago(e.RemainingS), e.EarlierLoads, e.TypicalS)
		} else {
			line("eta", "unknown: past the median of %d earlier loads (%.1fs)", e.EarlierLoads, e.TypicalS)
		}
	}
	if l := s.LastLoad; l != nil && s.Load.ReadyAt.IsZero() {
		line("last load", "%s on %s%s", health.Secs(l.Duration()), stamp(l.StartedAt), phases(l.Phases))
	}
	if lv := s.Liveness; lv.IntervalS > 0 || lv.Last != nil {
		text := fmt.Sprintf("every %s", time.Duration(lv.IntervalS*float64(time.Second)))
		if p := lv.Last; p != nil {
			text += "; last " + probeText(p)
		}
		text += fmt.Sprintf("; %d failed in a row, %d in all", lv.Failures, lv.FailuresTotal)
		line("liveness", "%s", text)
	}
	if p := s.Readiness; p != nil && s.Load.ReadyAt.IsZero() {
		line("last probe", "%s", probeText(p))
	}
	if s.StatusURL != "" || s.Restarts > 0 || s.LastExit != nil {
		text := fmt.Sprintf("%d on this host", s.Restarts)
		if s.LaunchesSince != nil {
			text += " since " + stamp(*s.LaunchesSince)
		}
		if x := s.LastExit; x != nil {
			text += "; the last run ended " + exitText(x)
		}
		// Every earlier launch of the profile counts, a manual stop and
		// start as well as a restart by systemd: "restarts 1" after a
		// manual stop read as a crash (issue 24).
		line("earlier runs", "%s", text)
	}
	if x := s.Exit; x != nil {
		line("exit", "%s", exitText(x))
	}
	if bm := s.Benchmarked; bm != nil {
		line("benchmarked", "%s", benchText(bm))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func probeText(p *Probe) string {
	t := fmt.Sprintf("%s in %.1f ms at %s", p.Result, p.TookMS, p.At.UTC().Format("15:04:05"))
	if p.Error != "" && p.Error != p.Result {
		t += " (" + p.Error + ")"
	}
	return t
}

func exitText(x *Exit) string {
	t := fmt.Sprintf("with status %d at %s", x.Status, stamp(x.At))
	if x.Status < 0 {
		t = "before the server ran, at " + stamp(x.At)
	}
	if x.Reason != "" {
		t += ": " + x.Reason
	}
	return t
}

func benchText(b *Benchmark) string {
	switch {
	case b.None != "":
		return "no: " + b.None
	case b.Exact:
		t := b.Record + " " + b.Date
		if b.OutputThroughput > 0 {
			t += fmt.Sprintf(" output_throughput=%.1f tok/s", b.OutputThroughput)
		}
		if b.Headline != "" {
			t += " (" + b.Headline + ")"
		}
		return t
	}
	return fmt.Sprintf("no record has this fingerprint; nearest %s %s differs in %s", b.Record, b.Date, strings.Join(b.DiffersIn, ", "))
}

func phases(ps []health.Phase) string {
	if len(ps) == 0 {
		return ""
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Name + " " + health.Secs(p.At)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func ago(secs float64) string {
	return time.Duration(secs * float64(time.Second)).Round(100 * time.Millisecond).String()
}
