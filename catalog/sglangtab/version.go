package sglangtab

import (
	"strconv"
	"strings"
)

// pyVersion is the part of a PEP 440 version the lookup orders by:
// release numbers, then pre-release (a, b, rc) < final < post; dev before
// all of them. A local label (+sim, +g1234) is ignored for ordering.
type pyVersion struct {
	release []int
	// phase: 0 dev, 1 pre, 2 final, 3 post; n its number.
	phase, n int
	ok       bool
}

func parseVersion(s string) pyVersion {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	v := pyVersion{phase: 2}
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			break
		}
		n, _ := strconv.Atoi(s[i:j])
		v.release = append(v.release, n)
		i = j
		if i < len(s) && s[i] == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			i++
			continue
		}
		break
	}
	if len(v.release) == 0 {
		return v
	}
	rest := strings.TrimLeft(s[i:], ".-_")
	for _, p := range []struct {
		pre   string
		phase int
	}{{"dev", 0}, {"rc", 1}, {"a", 1}, {"b", 1}, {"post", 3}} {
		if strings.HasPrefix(rest, p.pre) {
			v.phase = p.phase
			v.n, _ = strconv.Atoi(strings.TrimLeft(rest[len(p.pre):], "."))
			rest = ""
			break
		}
	}
	v.ok = rest == ""
	return v
}

// compare orders a and b: -1, 0 or 1.
func compare(a, b pyVersion) int {
	for i := 0; i < max(len(a.release), len(b.release)); i++ {
		x, y := at(a.release, i), at(b.release, i)
		if x != y {
			return sign(x - y)
		}
	}
	if a.phase != b.phase {
		return sign(a.phase - b.phase)
	}
	return sign(a.n - b.n)
}

func at(s []int, i int) int {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
