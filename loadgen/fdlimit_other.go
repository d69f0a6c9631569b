//go:build !unix

package loadgen

// raiseFileLimit: no limit on open files to raise or report here.
func raiseFileLimit(int) string { return "" }
