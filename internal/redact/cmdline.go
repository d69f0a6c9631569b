package redact

import "strings"

// CommandLine masks secrets in sglaunch's own command line: the
// values of secret flags (--api-key X, after --) and of --set
// assignments to secret names (--set env.HF_TOKEN=X), however the flag
// is spelled: Go's flag parsing takes -set, --set, -set=V and --set=V.
func CommandLine(args []string) []string {
	out := Argv(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, inline := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "set" {
			continue
		}
		if inline {
			out[i] = strings.TrimSuffix(a, val) + Assignment(val)
			continue
		}
		if i+1 < len(out) {
			i++
			out[i] = Assignment(out[i])
		}
	}
	return out
}
