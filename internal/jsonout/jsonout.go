// Package jsonout writes a value as the commands print JSON: indented
// by two spaces, a newline after it.
//
// It must not know any of sglaunch's types, nor mask anything: a type
// that holds secrets masks them in its own MarshalJSON.
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
