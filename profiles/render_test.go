package profiles

import (
	"strings"
	"testing"
)

// TestProfilesShowPrintsSecrets pins issue 12 defect 3: `profiles show`
// printed the profile's API key, abbreviated or not, and its HF_TOKEN in
// the clear, while config masked them. Settings whose names hold "key"
// or "token" are still shown.
func TestProfilesShowPrintsSecrets(t *testing.T) {
	p, err := Parse("p.yaml", []byte(`name: p
env:
  HF_TOKEN: hf_secret_value
  NCCL_IB_PKEY: "1"
  EMPTY_TOKEN: ""
args:
  model-path: /m
  api-k: sk-abbreviated
  admin-api-key: [sk-admin]
  max-total-tokens: 8192
serve:
  env:
    OPENAI_API_KEY: sk-overlay
`))
	if err != nil {
		t.Fatal(err)
	}
	out := p.YAML()
	for _, leak := range []string{"hf_secret_value", "sk-abbreviated", "sk-admin", "sk-overlay"} {
		if strings.Contains(out, leak) {
			t.Errorf("profiles show prints %q:\n%s", leak, out)
		}
	}
	for _, want := range []string{`HF_TOKEN: <redacted>`, `api-k: <redacted>`, "NCCL_IB_PKEY: 1", "max-total-tokens: 8192", `EMPTY_TOKEN: ""`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
