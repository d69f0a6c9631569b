package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// Sentinels of Read's input errors.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// Read returns the content of the regular file path, at most limit bytes.
// A file that does not exist or cannot be opened gives the *fs.PathError
// of os.Open (errors.Is(err, fs.ErrNotExist) holds); a directory, device,
// pipe or socket, or a file over limit, gives an input error that names
// path:line:col (1:1, or where the limit is passed) and wraps
// ErrNotRegular or ErrTooLarge.
func Read(path string, limit int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, inputerr.Errorf("%s:1:1: %w (%s); give a regular file", path, ErrNotRegular, kind(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, inputerr.Errorf("%s:1:1: %w: %d bytes, more than the %s a file may hold", path, ErrTooLarge, fi.Size(), Size(limit))
	}
	// A file that grows while read (or a /proc file, whose size is 0) is
	// still cut at limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		line := bytes.Count(data[:limit], []byte("\n")) + 1
		col := int(limit) - (bytes.LastIndexByte(data[:limit], '\n') + 1) + 1
		return nil, inputerr.Errorf("%s:%d:%d: %w: more than the %s a file may hold", path, line, col, ErrTooLarge, Size(limit))
	}
	return data, nil
}

// Size writes a byte count the way limits are stated: 1 MiB, 64 MiB.
func Size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a plain file"
}

// openFile is os.OpenFile, a seam for platforms without O_NONBLOCK.
var openFile = os.OpenFile
