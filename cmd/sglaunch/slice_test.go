package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSetSplitsAtCommas pins issue 12 defect 10: urfave/cli's slice flags
// split each value at commas, so the README's own
// --set 'args.cuda-graph-bs=[1, 2, 4]' failed, env.CUDA_VISIBLE_DEVICES=0,1,2,3
// failed, and env.NCCL_IB_HCA=mlx5_0,env.NCCL_ALGO=Tree silently became
// two assignments. One flag is one value.
func TestSetSplitsAtCommas(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(profile, []byte("python: python3\nenv:\n  NCCL_DEBUG: INFO\nargs:\n  model-path: /m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"sglaunch", "config", "--json", "--profile", profile,
		"--set", "args.cuda-graph-bs=[1, 2, 4]",
		"--set", "env.CUDA_VISIBLE_DEVICES=0,1,2,3",
		"--set", "env.NCCL_IB_HCA=mlx5_0,env.NCCL_ALGO=Tree",
	}, testEnv(&stdout, &stderr))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var v struct {
		Argv []string          `json:"argv"`
		Env  map[string]string `json:"env"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(v.Argv, "--cuda-graph-bs"); i < 0 || strings.Join(v.Argv[i+1:min(i+4, len(v.Argv))], " ") != "1 2 4" {
		t.Errorf("argv %q, want --cuda-graph-bs 1 2 4", v.Argv)
	}
	if v.Env["CUDA_VISIBLE_DEVICES"] != "0,1,2,3" || v.Env["NCCL_IB_HCA"] != "mlx5_0,env.NCCL_ALGO=Tree" {
		t.Errorf("env %v", v.Env)
	}
	if _, ok := v.Env["NCCL_ALGO"]; ok {
		t.Error("one --set became two assignments")
	}

	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"sglaunch", "config", "--profile", profile, "--unset", "env.NCCL_DEBUG,env.X"}, testEnv(&stdout, &stderr))
	if code != 2 || !strings.Contains(stderr.String(), "one name per --unset") {
		t.Errorf("--unset with a comma: exit %d, %s", code, stderr.String())
	}
}
