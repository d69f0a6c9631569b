package redact

import (
	"slices"
	"strings"
)

// Mask replaces a secret value.
const Mask = "<redacted>"

// Value returns Mask for the non-empty value of a credential variable
// (IsSecretVar), the value otherwise, with a URL's password masked
// (URLPassword).
func Value(name, value string) string {
	if value != "" && IsSecretVar(name) {
		return Mask
	}
	return URLPassword(value)
}

// FlagValue returns Mask for the non-empty value of a credential flag
// (IsSecretFlag), the value otherwise, with a URL's password masked.
func FlagValue(opt, value string) string {
	if value != "" && IsSecretFlag(opt) {
		return Mask
	}
	return URLPassword(value)
}

// Assignment masks the value of a KEY=VALUE assignment (--set) whose key
// names a credential (IsSecretKey).
func Assignment(kv string) string {
	if key, val, ok := strings.Cut(kv, "="); ok && val != "" && IsSecretKey(key) {
		return key + "=" + Mask
	}
	return kv
}

// Argv returns a copy of an SGLang argv with the values of credential
// flags masked: --api-key X, --api-key=X and --api-k X (a prefix argparse
// accepts) all become <redacted>; so does the password of any URL written
// with credentials (URLPassword).
func Argv(argv []string) []string { return maskArgv(argv, IsSecretFlag) }

// CommandArgv returns a copy of another program's argv (a command
// workload) with the values of options named like credentials masked:
// --api-key X, --token=X, --hf-token X. Names are taken as written: the
// program's own options are not SGLang's, so no prefix is resolved.
func CommandArgv(argv []string) []string {
	return maskArgv(argv, func(opt string) bool {
		name := strings.TrimLeft(opt, "-")
		return slices.Contains(SecretFlags, "--"+name) || credentialName(name)
	})
}

func maskArgv(argv []string, secret func(opt string) bool) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := range out {
		out[i] = URLPassword(out[i])
	}
	for i := 0; i < len(out); i++ {
		a := out[i]
		if !strings.HasPrefix(a, "--") || a == "--" {
			continue
		}
		name, _, hasEq := strings.Cut(a, "=")
		if !secret(name) {
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

// Environ returns a copy of a NAME=value list with credential values masked.
func Environ(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		out[i] = name + "=" + Value(name, val)
	}
	return out
}

// IsMasked reports whether a value is the mask: a secret that was
// redacted before it was stored, whose real value is unknown.
func IsMasked(v string) bool { return v == Mask }
