package plan

import (
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/profiles"
)

// TestCudaVisibleDevicesDroppedSilently pins issue 12 defect 13: a
// CUDA_VISIBLE_DEVICES exported in the shell (a Slurm allocation) was
// dropped with one line in a 60-line config dump, and the server ran on
// every GPU. The drop is now a warning of its own with the fix; so is a
// profile value that replaces the allocation with other GPUs.
func TestCudaVisibleDevicesDroppedSilently(t *testing.T) {
	parse := func(yaml string) *profiles.Profile {
		p, err := profiles.Parse("p.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	environ := []string{"CUDA_VISIBLE_DEVICES=4,5,6,7", "NCCL_DEBUG=INFO", "PATH=/bin"}
	tests := []struct {
		name, yaml, want string
	}{
		{"dropped", "args:\n  model-path: /m\n", "CUDA_VISIBLE_DEVICES=4,5,6,7 in sglaunch's own environment is dropped (CUDA_ variables come only from the profile): the server sees every GPU, not these; to keep it, add inherit_env: [CUDA_VISIBLE_DEVICES] to the profile, or set it under env:"},
		{"replaced by other GPUs", "env:\n  CUDA_VISIBLE_DEVICES: \"0,1\"\nargs:\n  model-path: /m\n", "CUDA_VISIBLE_DEVICES=4,5,6,7 in sglaunch's own environment is replaced by the plan's 0,1: the server runs on other GPUs than the environment gives; to use the environment's, remove env.CUDA_VISIBLE_DEVICES from the profile and add inherit_env: [CUDA_VISIBLE_DEVICES]"},
		{"replaced by the same GPUs", "env:\n  CUDA_VISIBLE_DEVICES: \"4,5,6,7\"\nargs:\n  model-path: /m\n", ""},
		{"inherited", "inherit_env: [CUDA_VISIBLE_DEVICES]\nargs:\n  model-path: /m\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := resolve(t, Request{Profile: parse(tt.yaml), Mode: ModeServe, Environ: environ})
			var got []string
			for _, w := range p.DropWarnings() {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
