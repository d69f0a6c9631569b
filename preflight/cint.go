package preflight

import (
	"fmt"
	"math"
	"strings"
)

// cInt is how C's strtoll(s, NULL, 0) reads a string.
type cInt struct {
	n        int64
	base     int    // 8, 10 or 16
	digits   string // the digits it consumed, after any sign and 0x
	rest     string // what it left unread
	lead     bool   // leading white space was skipped
	overflow bool   // out of int64 range: ERANGE
}

// none reports whether strtoll found no number at all (it returns 0).
func (c cInt) none() bool { return c.digits == "" }

// strtoll emulates strtoll(s, NULL, 0): white space, a sign, then 0x for
// hex, a leading 0 for octal, decimal otherwise, up to the first
// character that is not a digit of the base.
func strtoll(s string) cInt {
	i := 0
	for i < len(s) && strings.IndexByte(" \t\n\v\f\r", s[i]) >= 0 {
		i++
	}
	c := cInt{base: 10, lead: i > 0}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	switch {
	case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16:
		c.base = 16
		i += 2
	case i < len(s) && s[i] == '0':
		c.base = 8
	}
	start := i
	var u uint64
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	for i < len(s) && digitValue(s[i]) < c.base {
		d := uint64(digitValue(s[i]))
		if u > (limit-d)/uint64(c.base) {
			c.overflow = true
		} else {
			u = u*uint64(c.base) + d
		}
		i++
	}
	c.digits, c.rest = s[start:i], s[i:]
	switch {
	case c.none():
		c.rest = s
	case c.overflow && neg:
		c.n = math.MinInt64
	case c.overflow:
		c.n = math.MaxInt64
	case neg:
		c.n = -int64(u)
	default:
		c.n = int64(u)
	}
	return c
}

func digitValue(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return 99
}

// sizeNote renders a byte count readably: " (16 MiB)", or "" when it is
// not a whole number of KiB.
func sizeNote(n int64) string {
	units := []string{"EiB", "PiB", "TiB", "GiB", "MiB", "KiB"}
	for i, u := range units {
		m := int64(1) << (10 * (len(units) - i))
		if n >= m && n%m == 0 {
			return fmt.Sprintf(" (%d %s)", n/m, u)
		}
	}
	return ""
}
