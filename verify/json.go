package verify

import (
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON writes v as indented JSON, a newline after it.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
