package byteset

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestIndexAsLoop: the vector search finds what the byte loop finds, for
// every length around the vector's, every place of the first match (or
// none), sets of every size, and bytes next to the set's.
func TestIndexAsLoop(t *testing.T) {
	if !Fast {
		t.Log("no vector search on this machine: Index is the loop itself")
	}
	r := rand.New(rand.NewPCG(1, 2))
	sets := [][]byte{{'W'}, {0x1b, '<'}, {0x1b, 'm', 'x', 'W', 'E', 'C', 'F', '<'}, {0, 0xff, 0x80, 0x7f}}
	for _, members := range sets {
		s := MustNew(members...)
		// Bytes outside the set, some a bit off a member's value.
		var other []byte
		for c := range 256 {
			if !s.Has(byte(c)) {
				other = append(other, byte(c))
			}
		}
		for n := 0; n <= 3*32+5; n++ { // lengths around three vectors
			p := make([]byte, n)
			for i := range p {
				p[i] = other[r.IntN(len(other))]
			}
			if got, want := s.Index(p), s.indexLoop(p); got != want || want != -1 {
				t.Fatalf("set %q, %d bytes, none in it: Index %d, want %d", members, n, got, want)
			}
			for at := range n {
				q := bytes.Clone(p)
				q[at] = members[r.IntN(len(members))]
				if r.IntN(3) == 0 && at+1 < n { // a second match after the first
					q[at+1+r.IntN(n-at-1)] = members[r.IntN(len(members))]
				}
				if got := s.Index(q); got != at {
					t.Fatalf("set %q, %d bytes, first match at %d: Index %d", members, n, at, got)
				}
			}
		}
	}
}

func TestNewBounds(t *testing.T) {
	if _, err := New(); err == nil {
		t.Error("an empty set was accepted")
	}
	if _, err := New(1, 2, 3, 4, 5, 6, 7, 8, 9); err == nil {
		t.Error("nine bytes were accepted")
	}
}

// BenchmarkIndex is one pass over 1 MiB holding no byte of an eight-byte
// set, against eight bytes.IndexByte passes (what the journal relay would
// otherwise do):
//
//	go test ./internal/byteset -bench Index
func BenchmarkIndex(b *testing.B) {
	p := bytes.Repeat([]byte("[2026-12-02 02:44:09 TP0] Decode batch. #running-req: 12, #token: 3456, token usage: 0.02\n"), (1<<20)/91)
	members := []byte{0x1b, 'm', 'x', 'W', 'E', 'C', 'F', '<'}
	s := MustNew(members...)
	b.Run("set", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			if s.Index(p) >= 0 {
				b.Fatal("a match")
			}
		}
	})
	b.Run("IndexByte-each", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			for _, c := range members {
				if bytes.IndexByte(p, c) >= 0 {
					b.Fatal("a match")
				}
			}
		}
	})
}
