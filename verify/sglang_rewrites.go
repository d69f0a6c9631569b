package verify

import (
	"slices"
	"strings"

	"github.com/sglaunch/sglaunch/plan"
)

// rewrite is a value SGLang resolves and reports in /server_info in a
// form other than the one given on its command line: not drift when a
// remote verify compares the two.
type rewrite struct {
	// Source is the SGLang file (python/sglang/...) that rewrites it.
	Source string
	// Reported turns the planned values into what /server_info reports.
	Reported func(values []string) []string
}

// serverRewrites are SGLang's known rewrites, keyed by ServerArgs field,
// checked against SGLang main of late 2026.
var serverRewrites = map[string]rewrite{
	// _handle_speculative_decoding: NEXTN shares EAGLE's implementation
	// and is renamed to it; names are upper-cased.
	"speculative_algorithm": {Source: "srt/server_args.py (_handle_speculative_decoding)", Reported: func(v []string) []string {
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = strings.ToUpper(s)
			if out[i] == "NEXTN" {
				out[i] = "EAGLE"
			}
		}
		return out
	}},
	// The deprecated switch is mapped to
	// --flashinfer-allreduce-fusion-backend=auto, then reset to false.
	"enable_flashinfer_allreduce_fusion": {Source: "srt/server_args.py (deprecated flag resolution)", Reported: func([]string) []string {
		return []string{"false"}
	}},
}

// rewrittenAgrees compares a server_info value with the planned use
// through SGLang's rewrite of that field; ok is false when SGLang does
// not rewrite it.
func rewrittenAgrees(u plan.Flag, v any) (agrees, ok bool) {
	rw, ok := serverRewrites[u.Spec.Dest]
	if !ok {
		return false, false
	}
	var got []string
	switch x := v.(type) {
	case []any:
		for _, it := range x {
			got = append(got, formatSI(it))
		}
	default:
		got = []string{formatSI(x)}
	}
	return slices.Equal(rw.Reported(u.Values), got), true
}
