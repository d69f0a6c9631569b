package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSbatchRequeuesFailedGroup: a failed group left the job FAILED and
// nothing restarted it, although the README said the orchestrator
// restarts the group. With --max-requeues N the script requeues a group
// that failed (exit 1), never a drained stop (0) or bad input (2), and
// stops after N requeues. The script runs under bash with srun and
// scontrol stand-ins that record their calls.
func TestSbatchRequeuesFailedGroup(t *testing.T) {
	p, _ := jobProfile(t, "big", "/etc/sglaunch/profiles/big.yaml", sbatchProfile)
	script, err := SbatchScript(p, SbatchOptions{Exe: exe, MaxRequeues: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#SBATCH --requeue\n", "#SBATCH --open-mode=append\n"} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	tests := []struct {
		name     string
		srunExit string
		restarts string
		requeue  bool
	}{
		{"a failed group is requeued", "1", "0", true},
		{"the second requeue too", "1", "1", true},
		{"not past --max-requeues", "1", "2", false},
		{"a drained stop is not", "0", "0", false},
		{"bad input is not", "2", "0", false},
		{"a rank killed by a signal is", "137", "0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			calls := filepath.Join(dir, "calls")
			stub := func(name, body string) {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/bash\necho \""+name+" $*\" >> "+calls+"\n"+body), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			stub("srun", "exit "+tt.srunExit+"\n")
			stub("scontrol", "exit 0\n")
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = []string{"PATH=" + dir + ":/usr/bin:/bin", "SLURM_JOB_ID=42", "SLURM_NNODES=2", "SLURM_RESTART_COUNT=" + tt.restarts}
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(code) != tt.srunExit {
				t.Errorf("exit %d, want srun's %s\n%s", code, tt.srunExit, out)
			}
			got, _ := os.ReadFile(calls)
			if requeued := strings.Contains(string(got), "scontrol requeue 42"); requeued != tt.requeue {
				t.Errorf("requeued %v, want %v; calls:\n%s", requeued, tt.requeue, got)
			}
		})
	}
}
