package catalog

import (
	"strings"
	"sync"
)

var (
	humanOnce sync.Once
	humanInts map[string]bool
)

// HumanReadableInt reports whether SGLang parses the flag's value with
// human_readable_int, which also takes 128k (decimal) and 4K (binary)
// suffixes; the catalog marks these "int (human_readable_int...)".
func HumanReadableInt(name string) bool {
	humanOnce.Do(func() {
		humanInts = map[string]bool{}
		for _, line := range strings.Split(sglangServerArgsTxt, "\n") {
			name, rest, ok := strings.Cut(line, " | ")
			if ok && strings.HasPrefix(name, "--") && strings.Contains(rest, "human_readable_int") {
				humanInts[strings.Fields(name)[0]] = true
			}
		}
	})
	return humanInts[name]
}
