package plan

import "github.com/sglaunch/sglaunch/internal/redact"

// SecretValues are the plan's secret values as they might appear in the
// server's output: the values of secret flags (--api-key X, --api-k X)
// and of secret variables in the server's environment (HF_TOKEN). SGLang
// prints its parsed arguments, api_key included, at start-up. The masker
// of the output (redact.NewMasker) leaves out values under redact.MinLen.
func (p *Plan) SecretValues() []string {
	return append(redact.ArgvSecrets(p.Argv), redact.EnvironSecrets(p.Environ)...)
}
