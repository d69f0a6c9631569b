package launcher

import (
	"testing"

	"github.com/sglaunch/sglaunch/internal/redact"
	"github.com/sglaunch/sglaunch/plan"
)

func TestMaskSecrets(t *testing.T) {
	p := &plan.Plan{
		Argv:    []string{"/usr/bin/python3", "-m", "sglang.launch_server", "--api-key", "sk-live-123456", "--admin-api-key=adm-abcdef", "--tp", "8"},
		Environ: []string{"HF_TOKEN=hf_zyxwvu", "PATH=/bin", "MY_PASSWORD=abc"},
	}
	secrets := secretBytes(p.SecretValues())
	tests := []struct{ in, want string }{
		{"server_args=ServerArgs(api_key='sk-live-123456', tp_size=8)\n", "server_args=ServerArgs(api_key='" + redact.Mask + "', tp_size=8)\n"},
		{"admin adm-abcdef token hf_zyxwvu\n", "admin " + redact.Mask + " token " + redact.Mask + "\n"},
		{"short secrets stay: abc\n", "short secrets stay: abc\n"},
		{"nothing here\n", "nothing here\n"},
	}
	for _, tt := range tests {
		if got := string(maskSecrets([]byte(tt.in), secrets)); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
