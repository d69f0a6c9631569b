package catalog

import (
	"sort"
	"unicode/utf8"
)

// MaxSuggestLen bounds the names Nearest works on, in runes: a name (or a
// candidate) longer than that gets no suggestion, so the edit-distance
// work stays bounded (a 50,000-character flag name took 18 s). The longest
// SGLang option is under 80 characters.
const MaxSuggestLen = 128

// Nearest returns up to n candidates closest to s by edit distance, best
// first, leaving out those too far to be a plausible typo.
func Nearest(s string, candidates []string, n int) []string {
	type scored struct {
		c string
		d int
	}
	ls := utf8.RuneCountInString(s)
	if ls > MaxSuggestLen {
		return nil
	}
	limit := ls/3 + 2
	var hits []scored
	for _, c := range candidates {
		lc := utf8.RuneCountInString(c)
		// The distance is at least the difference in length.
		if lc > MaxSuggestLen || lc-ls > limit || ls-lc > limit {
			continue
		}
		if d := Distance(s, c); d <= limit {
			hits = append(hits, scored{c, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].d != hits[j].d {
			return hits[i].d < hits[j].d
		}
		return hits[i].c < hits[j].c
	})
	var out []string
	for i := 0; i < len(hits) && i < n; i++ {
		out = append(out, hits[i].c)
	}
	return out
}

// Distance is the Damerau (optimal string alignment) edit distance, so a
// swapped pair of letters counts as one typo.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
