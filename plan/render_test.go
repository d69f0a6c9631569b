package plan

import "testing"

// TestControlCharactersReachTerminal pins issue 12 defect 9 for what the
// config shows but no profile holds: a value inherited from sglaunch's
// own environment is printed with its control characters escaped.
func TestControlCharactersReachTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"plain":               "plain",
		"a b":                 "'a b'",
		"\x1b[31mred":         `$'\x1b[31mred'`,
		"it's\r\x00":          `$'it\'s\x0d\x00'`,
		"tab\there\x07":       `$'tab\there\x07'`,
		`back\slash` + "\x1b": `$'back\\slash\x1b'`,
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q): got %s, want %s", in, got, want)
		}
	}
}
