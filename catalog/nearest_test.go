package catalog

import (
	"strings"
	"testing"
	"time"
)

// TestLongUnknownFlagSuggestion pins issue 12 defect 9: a 50,000-character
// unknown flag name took 18 s to suggest a fix for (an edit distance
// against every option). Names far longer than any option get no
// suggestion and cost nothing; ordinary typos still get theirs.
func TestLongUnknownFlagSuggestion(t *testing.T) {
	args := SGLangArgs()
	start := time.Now()
	_, _, err := args.Resolve("--" + strings.Repeat("x", 50000))
	if d := time.Since(start); d > time.Second {
		t.Errorf("resolving a 50,000-character name took %v", d)
	}
	if ue, ok := err.(*UnknownError); !ok || len(ue.Suggestions) != 0 {
		t.Errorf("got %v, want an unknown flag without suggestions", err)
	}
	_, _, err = args.Resolve("--tp-szie")
	if ue, ok := err.(*UnknownError); !ok || len(ue.Suggestions) == 0 || ue.Suggestions[0] != "--tp-size" {
		t.Errorf("got %v, want --tp-size suggested", err)
	}
	if got := Nearest("tp", []string{strings.Repeat("t", 1000), "tp-size", "tq"}, 3); len(got) != 1 || got[0] != "tq" {
		t.Errorf("got %q", got)
	}
}
