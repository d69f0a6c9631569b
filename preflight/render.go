package preflight

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// header is the report's first line: what was checked, against what.
func (r *Report) header() string {
	s := fmt.Sprintf("preflight %s (%s): python %s", r.Profile, r.Mode, r.Python)
	switch {
	case r.SGLang.Version != "":
		s += fmt.Sprintf(", sglang %s, flags from %s", r.SGLang.Version, r.SGLang.Flags)
		if r.SGLang.Tables != "" {
			s += ", SGLang tables " + r.SGLang.Tables
		}
	case r.SGLang.Flags != "":
		s += ", flags from the " + r.SGLang.Flags
	}
	return s
}

// summary is the report's last line.
func (r *Report) summary() string {
	skipped := ""
	if n := r.Count(Skip); n > 0 {
		skipped = fmt.Sprintf(", %d skipped", n)
	}
	return fmt.Sprintf("%s, %s, %s%s in %.2fs",
		plural(r.Count(Pass), "passed", "passed"),
		plural(r.Count(Warn), "warning", "warnings"),
		plural(r.Count(Fail), "failure", "failures"),
		skipped, r.Duration.Seconds())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// WriteText prints every finding, grouped by check, with the reason, and
// the fix and origin of each warning and failure.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.header() + "\n")
	width := subjectWidth(r.Findings)
	check := ""
	for _, f := range r.Findings {
		if f.Check != check {
			check = f.Check
			b.WriteString("\n" + check + "\n")
		}
		writeFinding(&b, "  ", f, width, true)
	}
	b.WriteString("\n" + r.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCompact prints what serve and bench show before a launch: one
// summary line, then every warning and failure in full; passes are only
// counted.
func (r *Report) WriteCompact(w io.Writer) error {
	var b strings.Builder
	b.WriteString("sglaunch: preflight: " + r.summary())
	if r.SGLang.Version != "" {
		b.WriteString("; sglang " + r.SGLang.Version)
	}
	b.WriteString("\n")
	var shown []Finding
	for _, f := range r.Findings {
		if f.Status != Pass && f.Status != Skip {
			shown = append(shown, f)
		}
	}
	width := subjectWidth(shown)
	for _, f := range shown {
		writeFinding(&b, "", f, width, false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Log reports what WriteCompact prints as log records, for sglaunch's
// JSON log format: the summary, then one record per warning and failure.
func (r *Report) Log(log *slog.Logger) {
	log.Info("preflight: "+r.summary(), "sglang", r.SGLang.Version)
	for _, f := range r.Findings {
		level := slog.LevelWarn
		switch f.Status {
		case Pass, Skip:
			continue
		case Fail:
			level = slog.LevelError
		}
		log.Log(context.Background(), level, "preflight "+f.Status.String()+": "+f.Subject+": "+f.Reason,
			"check", f.Check, "subject", f.Subject, "fix", f.Fix, "from", f.Where)
	}
}

const maxSubjectWidth = 32

func subjectWidth(fs []Finding) int {
	w := 0
	for _, f := range fs {
		if n := len(f.Subject); n > w && n <= maxSubjectWidth {
			w = n
		}
	}
	return w
}

// writeFinding writes "STATUS  subject  reason" and, for a warning or a
// failure, indented fix: and from: lines. grouped leaves the check name
// out (it heads the group).
func writeFinding(b *strings.Builder, indent string, f Finding, width int, grouped bool) {
	b.WriteString(indent + f.Status.String() + "  ")
	if !grouped {
		b.WriteString(f.Check + "  ")
	}
	subject := f.Subject
	if len(subject) < width {
		subject += strings.Repeat(" ", width-len(subject))
	}
	b.WriteString(subject + "  " + f.Reason + "\n")
	if f.Status == Pass || f.Status == Skip {
		return
	}
	pad := indent + "      "
	if f.Fix != "" {
		b.WriteString(pad + "fix: " + f.Fix + "\n")
	}
	if f.Where != "" {
		b.WriteString(pad + "from: " + f.Where + "\n")
	}
}
