package byteset

import "fmt"

// Size is the most bytes a Set holds.
const Size = 8

// Set is a set of at most Size bytes.
type Set struct {
	nibbles tables
	in      [256]bool
}

// tables are the set by nibbles, for the vector search: low[n] has bit i
// set when member i's low nibble is n, high[n] when its high nibble is;
// each table is written twice, once per 16-byte lane of a vector.
type tables struct {
	low, high [32]byte
}

// New returns the set of bs; it fails with more than Size bytes or none.
func New(bs ...byte) (*Set, error) {
	if len(bs) == 0 || len(bs) > Size {
		return nil, fmt.Errorf("byteset: a set holds 1 to %d bytes, not %d", Size, len(bs))
	}
	s := &Set{}
	for i, c := range bs {
		s.in[c] = true
		for lane := 0; lane < 32; lane += 16 {
			s.nibbles.low[lane+int(c&0x0f)] |= 1 << i
			s.nibbles.high[lane+int(c>>4)] |= 1 << i
		}
	}
	return s, nil
}

// MustNew is New for a set written in the code.
func MustNew(bs ...byte) *Set {
	s, err := New(bs...)
	if err != nil {
		panic(err)
	}
	return s
}

// Has reports whether c is in the set.
func (s *Set) Has(c byte) bool { return s.in[c] }

// Index is the index of the first byte of p in the set, or -1.
func (s *Set) Index(p []byte) int {
	if Fast && len(p) >= vectorLen {
		return indexVector(p, &s.nibbles)
	}
	return s.indexLoop(p)
}

func (s *Set) indexLoop(p []byte) int {
	for i, c := range p {
		if s.in[c] {
			return i
		}
	}
	return -1
}
