package tail

import (
	"fmt"
	"strings"
)

// LineMax shortens a very long line (SGLang's server_args line) in an
// error message.
const LineMax = 1000

// Lines returns the last n lines of s that are not blank at its end,
// each as a terminal would show it; none for output that is all blank.
func Lines(s string, n int) []string { return lastLines(s, n, false) }

// Line returns the last n lines of b, trimmed and joined by " | ": a
// child's output as one line of an error. "" when b is all blank.
func Line(b []byte, n int) string {
	lines := Lines(string(b), n)
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " | ")
}

func lastLines(data string, n int, cut bool) []string {
	if n <= 0 {
		return nil
	}
	parts := strings.Split(strings.TrimRight(data, "\r\n"), "\n")
	if cut && len(parts) > 1 {
		parts = parts[1:] // the first line lost its start
	}
	var out []string
	for i := len(parts) - 1; i >= 0 && len(out) < n; i-- {
		p := shown(parts[i])
		if len(out) == 0 && strings.TrimSpace(p) == "" {
			continue // blank lines at the end say nothing
		}
		out = append(out, p)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// shown is a line as a terminal shows it: the text after its last
// carriage return, escapes stripped, shortened past LineMax.
func shown(p string) string {
	p = strings.TrimRight(p, "\r")
	if i := strings.LastIndexByte(p, '\r'); i >= 0 {
		p = p[i+1:]
	}
	if strings.IndexByte(p, 0x1b) >= 0 {
		p = string(AppendStripped(nil, []byte(p)))
	}
	if len(p) > LineMax {
		p = fmt.Sprintf("%s... [%d more bytes]", p[:LineMax], len(p)-LineMax)
	}
	return p
}
