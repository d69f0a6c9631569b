package pyvalue

import "testing"

func TestIntended(t *testing.T) {
	for in, want := range map[string]string{"16M": "16777216", "4MiB": "4194304", "1.5K": "1536", "1e6": "1000000", "yes": "1", "eight": "8", "Eight": "8", "010": "10"} {
		if got, ok := Intended(in); !ok || got != want {
			t.Errorf("Intended(%q): got %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"1.5", "many", ""} {
		if got, ok := Intended(in); ok {
			t.Errorf("Intended(%q): got %q, want no guess", in, got)
		}
	}
}

// TestTypeError: what Python's int() and float(), json.loads() and
// SGLang's human_readable_int accept.
func TestTypeError(t *testing.T) {
	tests := []struct {
		typ, v string
		bad    bool
	}{
		{TypeInt, "8", false}, {TypeInt, " -8 ", false}, {TypeInt, "1_000", false},
		{TypeInt, "eight", true}, {TypeInt, "8.0", true}, {TypeInt, "1__0", true}, {TypeInt, "", true},
		{TypeHumanInt, "128k", false}, {TypeHumanInt, "4K", false}, {TypeHumanInt, "4KiB", true},
		{TypeFloat, "0.9", false}, {TypeFloat, "inf", false}, {TypeFloat, "1e-3", false},
		{TypeFloat, "0x10", true}, {TypeFloat, "ninety", true},
		{TypeJSON, `{"a": 1}`, false}, {TypeJSON, "{a: 1}", true},
		{"str", "anything", false},
	}
	for _, tt := range tests {
		if msg := TypeError(tt.typ, tt.v); (msg != "") != tt.bad {
			t.Errorf("TypeError(%s, %q) = %q, want bad %v", tt.typ, tt.v, msg, tt.bad)
		}
	}
}
