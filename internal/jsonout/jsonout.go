package jsonout

import (
	"encoding/json"
	"fmt"
	"io"
)

// Write writes v as indented JSON, a newline after it.
func Write(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
