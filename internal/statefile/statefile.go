package statefile

import (
	"encoding/json"
	"fmt"

	"github.com/sglaunch/sglaunch/internal/atomicfile"
	"github.com/sglaunch/sglaunch/internal/inputfile"
)

// Modes of what Write creates: a state file is its user's alone.
const (
	FileMode = 0o600
	DirMode  = 0o700
)

// ErrTooLarge is wrapped by Read's error for a file over its bound.
var ErrTooLarge = inputfile.ErrTooLarge

// Read decodes the JSON file at path into v, reading at most limit
// bytes. Every error names path: a file that does not exist gives the
// *fs.PathError of the open (errors.Is(err, fs.ErrNotExist) holds); a
// file over limit, or not a regular file, an input error wrapping
// ErrTooLarge or inputfile.ErrNotRegular; content that is not JSON of
// v's shape, "read PATH: ..." wrapping the decoder's error.
func Read(path string, limit int64, v any) error {
	b, err := inputfile.Read(path, limit)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// Write stores v as indented JSON with a final newline, atomically: a
// reader sees the old file or the new one. The file is 0600; directories
// Write creates are 0700.
func Write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, append(b, '\n'), FileMode)
}
