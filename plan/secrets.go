package plan

import (
	"strings"

	"github.com/sglaunch/sglaunch/internal/redact"
)

// minSecretLen keeps short values (a "1", a "true") from being masked
// all over the output: they are not secrets worth hiding.
const minSecretLen = 6

// SecretValues are the plan's secret values as they might appear in the
// server's output: the values of secret flags (--api-key X) and of
// secret variables in the server's environment (HF_TOKEN). SGLang prints
// its parsed arguments, api_key included, at start-up.
func (p *Plan) SecretValues() []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen {
			out = append(out, v)
		}
	}
	masked := redact.Argv(p.Argv)
	for i, a := range p.Argv {
		if masked[i] != a {
			if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
				add(v)
			} else {
				add(a)
			}
		}
	}
	for _, kv := range p.Environ {
		name, v, _ := strings.Cut(kv, "=")
		if redact.IsSecret(name) {
			add(v)
		}
	}
	return out
}
