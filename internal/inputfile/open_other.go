//go:build !unix

package inputfile

import "os"

func open(path string) (*os.File, error) { return openFile(path, os.O_RDONLY, 0) }
