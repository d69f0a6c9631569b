//go:build !amd64

package byteset

import "math"

// Fast is false: Index is a loop a byte at a time.
const Fast = false

const vectorLen = math.MaxInt // never: Fast is false

func indexVector(p []byte, t *tables) int { panic("byteset: no vector search here") }
