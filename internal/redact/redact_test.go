package redact

import (
	"slices"
	"testing"
)

func TestArgv(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"separate", []string{"--api-key", "s3cr3t", "--tp", "8"}, []string{"--api-key", Mask, "--tp", "8"}},
		{"equals", []string{"--admin-api-key=abc"}, []string{"--admin-api-key=" + Mask}},
		{"plain", []string{"--model-path", "/m"}, []string{"--model-path", "/m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Argv(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEnviron(t *testing.T) {
	got := Environ([]string{"HF_TOKEN=hf_x", "NCCL_ALGO=Ring", "DB_PASSWORD="})
	want := []string{"HF_TOKEN=" + Mask, "NCCL_ALGO=Ring", "DB_PASSWORD="}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
