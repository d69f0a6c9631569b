package group

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on the peers' words that reach the log.
const (
	maxName   = 128  // a node's name, an address
	maxReason = 1024 // a reason
)

// clean makes a peer's words safe to log: control characters (a
// newline would start a forged log line) and invalid UTF-8 become '?',
// and the text is cut at most runes.
func clean(s string, most int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == most {
			b.WriteString("…")
			break
		}
		if r == utf8.RuneError || unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' {
			r = '?'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
