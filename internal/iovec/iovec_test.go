package iovec

import (
	"bytes"
	"testing"
)

func TestAdvance(t *testing.T) {
	for _, c := range []struct {
		bufs []string
		n    int
		want []string
	}{
		{[]string{"ab", "cd"}, 0, []string{"ab", "cd"}},
		{[]string{"", "", "ab"}, 0, []string{"ab"}},
		{[]string{"ab", "cd"}, 1, []string{"b", "cd"}},
		{[]string{"ab", "cd"}, 2, []string{"cd"}},
		{[]string{"ab", "", "cd"}, 2, []string{"cd"}},
		{[]string{"ab", "cd"}, 3, []string{"d"}},
		{[]string{"ab", "cd"}, 4, nil},
		{[]string{"ab", ""}, 2, nil},
		{nil, 0, nil},
	} {
		var bufs [][]byte
		for _, b := range c.bufs {
			bufs = append(bufs, []byte(b))
		}
		got := Advance(bufs, c.n)
		if len(got) != len(c.want) {
			t.Errorf("Advance(%q, %d) = %q, want %q", c.bufs, c.n, got, c.want)
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], []byte(c.want[i])) {
				t.Errorf("Advance(%q, %d) = %q, want %q", c.bufs, c.n, got, c.want)
				break
			}
		}
	}
}
