package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sglaunch/sglaunch/internal/testkit"
)

// fakeNvidiaSMI writes an nvidia-smi that prints csv (or fails with
// stderr and status) and returns a LookPath that finds it.
func fakeNvidiaSMI(t *testing.T, csv, stderr string, status int) func(string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nvidia-smi")
	script := fmt.Sprintf("#!/bin/sh\ncat <<'EOF'\n%sEOF\necho %q >&2\nexit %d\n", csv, stderr, status)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(name string) (string, error) {
		if name != "nvidia-smi" {
			t.Errorf("looked up %q, want nvidia-smi", name)
		}
		return path, nil
	}
}

func gpus(n int, name string, used ...int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		u := 0
		if i < len(used) {
			u = used[i]
		}
		fmt.Fprintf(&b, "%d, GPU-%08d-aaaa, %s, 81559, %d\n", i, i, name, u)
	}
	return b.String()
}

// TestGPUs: the visible GPUs (CUDA_VISIBLE_DEVICES applied) against
// tp × dp × pp, their names and memory listed, busy memory warned about.
func TestGPUs(t *testing.T) {
	tests := []struct {
		name, csv, env, args string
		status               int
		want                 []string // "STATUS subject: reason" of the gpu findings
	}{
		{"enough", gpus(2, "NVIDIA H100 80GB HBM3"), "", "  tp: 2\n", 0, []string{
			"PASS gpus: 2 visible (all GPUs); tp 2 × dp 1 × pp 1 needs 2",
			"PASS gpu 0: NVIDIA H100 80GB HBM3, 81559 MiB, 0 MiB in use",
			"PASS gpu 1: NVIDIA H100 80GB HBM3, 81559 MiB, 0 MiB in use",
		}},
		{"too few visible", gpus(8, "NVIDIA B200"), "  CUDA_VISIBLE_DEVICES: 0,1,2,3\n", "  tp: 8\n", 0, []string{
			"FAIL gpus: tp 8 × dp 1 × pp 1 needs 8 GPUs on this host; 4 visible (CUDA_VISIBLE_DEVICES=0,1,2,3)",
			"PASS gpu 0: NVIDIA B200, 81559 MiB, 0 MiB in use",
			"PASS gpu 1: NVIDIA B200, 81559 MiB, 0 MiB in use",
			"PASS gpu 2: NVIDIA B200, 81559 MiB, 0 MiB in use",
			"PASS gpu 3: NVIDIA B200, 81559 MiB, 0 MiB in use",
		}},
		{"dp attention inside tp", gpus(4, "NVIDIA H200"), "  CUDA_VISIBLE_DEVICES: GPU-00000003,GPU-00000001\n", "  tp: 2\n  dp: 2\n  enable-dp-attention: true\n", 0, []string{
			"PASS gpus: 2 visible (CUDA_VISIBLE_DEVICES=GPU-00000003,GPU-00000001); tp 2 × pp 1 (dp attention runs inside tp) needs 2",
			"PASS gpu 3: NVIDIA H200, 81559 MiB, 0 MiB in use",
			"PASS gpu 1: NVIDIA H200, 81559 MiB, 0 MiB in use",
		}},
		{"memory in use", gpus(1, "NVIDIA A100", 40000), "", "  mem-fraction-static: 0.88\n", 0, []string{
			"PASS gpus: 1 visible (all GPUs); tp 1 × dp 1 × pp 1 needs 1",
			"WARN gpu 0: NVIDIA A100, 81559 MiB, 40000 MiB in use: the server wants 88% of it (--mem-fraction-static 0.88), so it may run out of memory after the load",
		}},
		{"mixed models by index", "0, GPU-1, NVIDIA A100, 81559, 0\n1, GPU-2, NVIDIA L40S, 46068, 0\n", "  CUDA_VISIBLE_DEVICES: 1,0\n", "  tp: 2\n", 0, []string{
			"PASS gpus: 2 visible (CUDA_VISIBLE_DEVICES=1,0); tp 2 × dp 1 × pp 1 needs 2",
			"PASS gpu 1: NVIDIA L40S, 46068 MiB, 0 MiB in use",
			"PASS gpu 0: NVIDIA A100, 81559 MiB, 0 MiB in use",
			"WARN gpus: GPUs of different models, selected by index: CUDA numbers them fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, so the indices may not be nvidia-smi's",
		}},
		{"driver broken", "", "", "", 9, []string{
			"FAIL gpus: nvidia-smi failed: exit status 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr := ""
			if tt.status != 0 {
				stderr = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"
			}
			yaml := fmt.Sprintf("name: test\npython: python3\nenv:\n%s  X: y\nargs:\n  model-path: %s\n  port: %d\n%s", tt.env, modelDir(t), testkit.FreePort(t), tt.args)
			r := run(t, resolve(t, yaml, ""), Options{Catalog: true, LookPath: fakeNvidiaSMI(t, tt.csv, stderr, tt.status)})
			var got []string
			for _, f := range r.Findings {
				if f.Check == CheckGPU {
					got = append(got, fmt.Sprintf("%v %s: %s", f.Status, f.Subject, f.Reason))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
