package cluster

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxHosts bounds what one hostlist may expand to.
const MaxHosts = 65536

// ExpandHostlist expands Slurm's compressed hostlist syntax, as
// `scontrol show hostnames` does: "gpu[01-02,05],cpu1" is gpu01, gpu02,
// gpu05, cpu1. A range keeps the width of its lower bound (01-10 gives
// 01…10); several bracket groups in one name multiply
// ("r[1-2]n[1-2]": r1n1, r1n2, r2n1, r2n2).
func ExpandHostlist(list string) ([]string, error) {
	var out []string
	for _, item := range splitTop(list) {
		if item == "" {
			continue
		}
		names, err := expandItem(item, MaxHosts-len(out))
		if err != nil {
			return nil, fmt.Errorf("hostlist %q: %w", list, err)
		}
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hostlist %q: no host in it", list)
	}
	return out, nil
}

// splitTop splits at the commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// expandItem expands one name with bracket groups, at most limit names.
func expandItem(item string, limit int) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsRune(item, ']') {
			return nil, fmt.Errorf("%q: ']' without '['", item)
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("%q: '[' without ']'", item)
	}
	end += open
	prefix, ranges, rest := item[:open], item[open+1:end], item[end+1:]
	if strings.ContainsRune(ranges, '[') {
		return nil, fmt.Errorf("%q: nested '['", item)
	}
	suffixes, err := expandItem(rest, limit)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		nums, err := expandRange(r)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		for _, n := range nums {
			for _, s := range suffixes {
				if len(out) >= limit {
					return nil, fmt.Errorf("expands to more than %d hosts", MaxHosts)
				}
				out = append(out, prefix+n+s)
			}
		}
	}
	return out, nil
}

// expandRange expands "01-03" (or "5") to its numbers, zero-padded to
// the width of the lower bound.
func expandRange(r string) ([]string, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(r), "-")
	if !isRange {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if lo == "" || hi == "" || err1 != nil || err2 != nil || a < 0 || b < 0 || strings.ContainsAny(lo+hi, "+") {
		return nil, fmt.Errorf("range %q: want N or N-M with whole numbers, like 01-04", r)
	}
	if b < a {
		return nil, fmt.Errorf("range %q: the upper bound is below the lower", r)
	}
	if b-a >= MaxHosts {
		return nil, fmt.Errorf("range %q expands to more than %d hosts", r, MaxHosts)
	}
	width := len(lo)
	out := make([]string, 0, b-a+1)
	for n := a; n <= b; n++ {
		out = append(out, fmt.Sprintf("%0*d", width, n))
	}
	return out, nil
}
