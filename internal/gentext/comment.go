package gentext

import (
	"strconv"
	"strings"
	"unicode"
)

// Comment renders text for a one-line comment: control characters (a
// newline in a profile path would end the comment and start a directive)
// are written as Go escapes, and so are Unicode line and paragraph
// separators.
func Comment(s string) string {
	if !strings.ContainsFunc(s, unsafeInLine) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func unsafeInLine(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085'
}
