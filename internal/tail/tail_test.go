package tail

import (
	"strings"
	"testing"
)

func TestBufferLines(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		n      int
		want   []string
	}{
		{"empty", nil, 40, nil},
		{"last n", []string{"a\nb\n", "c\nd\n"}, 3, []string{"b", "c", "d"}},
		{"carriage returns", []string{"bar  10%\rbar 100%\r\n", "done\n"}, 40, []string{"bar 100%", "done"}},
		{"no final newline", []string{"x\ny"}, 40, []string{"x", "y"}},
		{"long line", []string{strings.Repeat("z", LineMax+5) + "\n"}, 40, []string{strings.Repeat("z", LineMax) + "... [5 more bytes]"}},
		{"escapes", []string{"\x1b[1;31mboom\x1b[0m\n"}, 1, []string{"boom"}},
		{"blank end", []string{"last words\n\n  \n\x1b[0m\n"}, 1, []string{"last words"}},
		{"none asked", []string{"a\n"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl Buffer
			for _, w := range tt.writes {
				tl.Write([]byte(w))
			}
			got := tl.Lines(tt.n)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBufferDropsCutLine(t *testing.T) {
	var tl Buffer
	tl.Write([]byte("start of a line that will be cut\n"))
	tl.Write([]byte(strings.Repeat("x\n", DefaultMax/2)))
	got := tl.Lines(DefaultMax)
	if len(got) == 0 {
		t.Fatal("got no lines")
	}
	for _, l := range got {
		if l != "x" {
			t.Fatalf("got line %q after truncation, want only whole lines", l)
		}
	}
}

func TestBufferKeepsEnd(t *testing.T) {
	tests := []struct {
		name        string
		writes      []string
		want        string
		wantDropped int64
	}{
		{"fits", []string{"ab", "cd"}, "abcd", 0},
		{"drops the front", []string{"abc", "defg"}, "defg", 3},
		{"one large write", []string{"ab", "cdefgh"}, "efgh", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &Buffer{Max: 4}
			for _, w := range tt.writes {
				if n, err := tb.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if tb.String() != tt.want || tb.Dropped() != tt.wantDropped {
				t.Errorf("got %q dropped %d, want %q and %d", tb.String(), tb.Dropped(), tt.want, tt.wantDropped)
			}
		})
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"empty", "", 3, ""},
		{"blank", " \n\n", 3, ""},
		{"last n trimmed", "one\n  two  \nthree\n", 2, "two | three"},
		{"fewer than n", "only\n", 5, "only"},
		{"blank end skipped", "Traceback\nValueError: bad\n\n", 1, "ValueError: bad"},
		{"progress bar", "load  10%\rload 100%\n", 1, "load 100%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line([]byte(tt.in), tt.n); got != tt.want {
				t.Errorf("Line(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
