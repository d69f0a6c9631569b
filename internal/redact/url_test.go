package redact

import (
	"slices"
	"testing"
)

// TestURLPassword pins issue 22: a model path written as a URL with
// credentials (https://user:pw@host/model) was printed in clear by
// config, verify and the records. The password of such a URL is masked
// by an exact rule; nothing else in the value is.
func TestURLPassword(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://alice:s3cret@hub.example/models/kimi", "https://alice:<redacted>@hub.example/models/kimi"},
		{"s3://key:sec:ret@bucket/path", "s3://key:<redacted>@bucket/path"},
		{"https://alice@hub.example/m", "https://alice@hub.example/m"},
		{"https://alice:@hub.example/m", "https://alice:@hub.example/m"},
		{"https://hub.example/a:b@c", "https://hub.example/a:b@c"},
		{"/models/kimi:v2@latest", "/models/kimi:v2@latest"},
		{"moonshotai/Kimi-K2.5", "moonshotai/Kimi-K2.5"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := URLPassword(tt.in); got != tt.want {
			t.Errorf("URLPassword(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	argv := []string{"--model-path", "https://u:pw1@h/m", "--tokenizer-path=https://u:pw2@h/t", "--api-key", "k"}
	masked := Argv(argv)
	want := []string{"--model-path", "https://u:<redacted>@h/m", "--tokenizer-path=https://u:<redacted>@h/t", "--api-key", "<redacted>"}
	if !slices.Equal(masked, want) {
		t.Errorf("Argv = %q, want %q", masked, want)
	}
	if got := ArgvSecrets(argv); !slices.Equal(got, []string{"pw1", "pw2", "k"}) {
		t.Errorf("ArgvSecrets = %q, want the passwords and the key", got)
	}
	if got := Environ([]string{"HF_ENDPOINT=https://u:pw3@h"}); got[0] != "HF_ENDPOINT=https://u:<redacted>@h" {
		t.Errorf("Environ = %q", got)
	}
	if got := EnvironSecrets([]string{"HF_ENDPOINT=https://u:pw3@h"}); !slices.Equal(got, []string{"pw3"}) {
		t.Errorf("EnvironSecrets = %q", got)
	}
}
