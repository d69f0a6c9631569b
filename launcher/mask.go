package launcher

import (
	"bytes"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// secretBytes turns the plan's secret values into what maskSecrets looks for.
func secretBytes(values []string) [][]byte {
	out := make([][]byte, len(values))
	for i, v := range values {
		out[i] = []byte(v)
	}
	return out
}

// maskSecrets replaces every secret value in b with redact.Mask. It
// returns b itself when there is nothing to mask, the common case.
func maskSecrets(b []byte, secrets [][]byte) []byte {
	for _, s := range secrets {
		if bytes.Contains(b, s) {
			b = bytes.ReplaceAll(b, s, []byte(redact.Mask))
		}
	}
	return b
}
