package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobFileCommands runs slurm and lws end to end: the file goes to
// stdout or -o, and a profile they cannot run is bad input (exit 2).
func TestJobFileCommands(t *testing.T) {
	dir := t.TempDir()
	multi := filepath.Join(dir, "big.yaml")
	single := filepath.Join(dir, "one.yaml")
	for path, text := range map[string]string{
		multi:  "args: {model-path: /m, tp: 16, host: 0.0.0.0}\nmultinode: {nodes: 2}\n",
		single: "args: {model-path: /m, tp: 8, host: 0.0.0.0}\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out", "job")
	tests := []struct {
		args   []string
		code   int
		stdout string // in stdout, or in the -o file
		stderr string
	}{
		{[]string{"slurm", "--profile", multi}, 0, "exec srun --nodes=\"$SLURM_NNODES\"", ""},
		{[]string{"slurm", "--profile", multi, "-o", out, "--partition", "gpu"}, 0, "#SBATCH --partition=gpu", ""},
		{[]string{"slurm", "--profile", single}, 2, "", "set multinode.nodes"},
		{[]string{"lws", "--profile", multi, "--image", "img"}, 0, "kind: LeaderWorkerSet", ""},
		{[]string{"lws", "--profile", multi, "--image", "img", "-o", out, "--replicas", "2"}, 0, "replicas: 2", ""},
		{[]string{"lws", "--profile", multi}, 2, "", "--image is required"},
		{[]string{"lws", "--profile", single, "--image", "img"}, 2, "", "set multinode.nodes"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s-%d", tt.args[0], i), func(t *testing.T) {
			os.Remove(out)
			var stdout, stderr bytes.Buffer
			e := testEnv(&stdout, &stderr)
			e.lookPath = func(string) (string, error) { return "/usr/bin/python3", nil }
			code := run(context.Background(), append([]string{"sglaunch"}, tt.args...), e)
			got := stdout.String()
			if strings.Contains(strings.Join(tt.args, " "), "-o") {
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if stdout.Len() > 0 {
					t.Errorf("-o and stdout too:\n%s", stdout.String())
				}
				got = string(b)
			}
			if code != tt.code || !strings.Contains(got, tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, want %d with %q in the file and %q in stderr\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.stdout, tt.stderr, got, stderr.String())
			}
		})
	}
}
