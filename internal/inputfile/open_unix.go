//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// open opens path for reading without blocking: opening a named pipe
// with no writer would wait forever. O_NONBLOCK changes nothing for a
// regular file, the only kind Read goes on to read.
func open(path string) (*os.File, error) {
	return openFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
