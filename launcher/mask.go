package launcher

import "github.com/sglaunch/sglaunch/internal/redact"

// secretBytes turns the plan's secret values into what the relays mask.
func secretBytes(values []string) [][]byte {
	out := make([][]byte, len(values))
	for i, v := range values {
		out[i] = []byte(v)
	}
	return out
}

// newMasker builds one stream's masker. Each relay has its own: the tail
// it holds back (the start of what may be a secret split across two
// reads) belongs to its stream. nil when there is nothing to mask.
func newMasker(secrets [][]byte) *redact.Masker {
	values := make([]string, len(secrets))
	for i, s := range secrets {
		values[i] = string(s)
	}
	return redact.NewMasker(values)
}
