package byteset

import "golang.org/x/sys/cpu"

// Fast reports whether Index searches a vector at a time: a slice of
// vectorLen bytes or more, with AVX2.
var Fast = cpu.X86.HasAVX2

// vectorLen is the bytes one comparison takes.
const vectorLen = 32

// indexVector is Index for len(p) >= vectorLen, with AVX2.
//
//go:noescape
func indexVector(p []byte, t *tables) int
