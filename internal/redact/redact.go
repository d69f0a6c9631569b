package redact

import "strings"

// Mask replaces a secret value.
const Mask = "<redacted>"

var words = []string{"key", "token", "secret", "password", "passwd", "credential"}

// IsSecret reports whether a flag or variable name names a secret: any
// name holding key, token, secret or password (--api-key, HF_TOKEN).
func IsSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range words {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Value returns Mask for a secret's non-empty value, the value otherwise.
func Value(name, value string) string {
	if value != "" && IsSecret(name) {
		return Mask
	}
	return value
}

// Argv returns a copy of argv with the values of secret flags masked:
// --api-key X and --api-key=X both become <redacted>.
func Argv(argv []string) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name, _, hasEq := strings.Cut(a, "=")
		if !IsSecret(name) {
			continue
		}
		if hasEq {
			out[i] = name + "=" + Mask
			continue
		}
		for j := i + 1; j < len(out) && !strings.HasPrefix(out[j], "--"); j++ {
			out[j] = Mask
			i = j
		}
	}
	return out
}

// Environ returns a copy of a NAME=value list with secret values masked.
func Environ(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		out[i] = name + "=" + Value(name, val)
	}
	return out
}
