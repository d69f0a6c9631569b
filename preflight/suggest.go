package preflight

import (
	"strings"

	"github.com/sglaunch/sglaunch/catalog"
)

// closest returns the candidates nearest to s by edit distance: those tied
// at the best distance, at most three, or none when nothing is close
// enough to be a plausible typo.
func closest(s string, candidates []string) []string {
	near := catalog.Nearest(s, candidates, 3)
	if len(near) == 0 {
		return nil
	}
	best := catalog.Distance(s, near[0])
	var out []string
	for _, c := range near {
		if catalog.Distance(s, c) == best {
			out = append(out, c)
		}
	}
	return out
}

// closestAfter is closest for names sharing a prefix (NCCL_, SGLANG_):
// only the rest counts, so a short unknown suffix is not "close" to
// every short name.
func closestAfter(prefix, s string, candidates []string) []string {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return closest(s, candidates)
	}
	var tails []string
	for _, c := range candidates {
		if t, ok := strings.CutPrefix(c, prefix); ok {
			tails = append(tails, t)
		}
	}
	var out []string
	for _, t := range closest(rest, tails) {
		out = append(out, prefix+t)
	}
	return out
}

// useOneOf phrases a list of allowed values as a fix.
func useOneOf(values []string) string {
	if len(values) == 1 {
		return "use " + values[0]
	}
	return "use one of " + orList(values)
}

// closestFold is closest ignoring case; it returns candidates as written.
func closestFold(s string, candidates []string) []string {
	lower := make([]string, len(candidates))
	back := map[string]string{}
	for i, c := range candidates {
		lower[i] = strings.ToLower(c)
		back[lower[i]] = c
	}
	var out []string
	for _, c := range closest(strings.ToLower(s), lower) {
		out = append(out, back[c])
	}
	return out
}

// didYouMean phrases suggestions: "did you mean X?" or "did you mean X
// or Y?"; empty when there are none.
func didYouMean(near []string) string {
	switch len(near) {
	case 0:
		return ""
	case 1:
		return "did you mean " + near[0] + "?"
	}
	return "did you mean " + strings.Join(near[:len(near)-1], ", ") + " or " + near[len(near)-1] + "?"
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
